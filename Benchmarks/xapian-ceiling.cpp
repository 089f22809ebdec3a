// How many items per second Xapian's writer itself absorbs on one core, with everything else
// taken out: every document is built in memory first (TermGenerator, title weighted, keywords and
// description, with positions), and only `add_document` into a fresh database and the final
// commit are timed. No JSON, no look-ups, no replacing.
//
//   xapian-ceiling DB items.jsonl [--no-positions]
//
// Prints one line of JSON. Built like xapian-baseline (g++ -O2, libxapian-dev, nlohmann-json3-dev).

#include <xapian.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: xapian-ceiling DB items.jsonl [--no-positions]\n");
        return 64;
    }
    try {
        const bool positions = !(argc > 3 && std::string(argv[3]) == "--no-positions");
        Xapian::TermGenerator generator;
        generator.set_stemmer(Xapian::Stem("english"));
        generator.set_flags(Xapian::TermGenerator::FLAG_CJK_NGRAM);
        auto index = [&](const std::string &text, Xapian::termcount weight, const std::string &prefix) {
            if (positions) {
                generator.index_text(text, weight, prefix);
            } else {
                generator.index_text_without_positions(text, weight, prefix);
            }
            generator.increase_termpos(100);
        };
        std::vector<Xapian::Document> documents;
        std::ifstream lines(argv[2]);
        std::string line;
        while (std::getline(lines, line)) {
            if (line.empty()) continue;
            nlohmann::json item = nlohmann::json::parse(line);
            Xapian::Document document;
            generator.set_document(document);
            index(item.value("title", ""), 3, "");
            for (const auto &keyword : item.value("keywords", nlohmann::json::array()))
                index(keyword.get<std::string>(), 2, "XK");
            index(item.value("contentDescription", ""), 1, "XC");
            document.add_boolean_term("Q" + item.value("canonicalIdentifier", ""));
            document.set_data(line);
            documents.push_back(document);
        }
        auto start = std::chrono::steady_clock::now();
        Xapian::WritableDatabase database(argv[1], Xapian::DB_CREATE_OR_OVERWRITE);
        for (const auto &document : documents) database.add_document(document);
        database.commit();
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("{\"items\": %zu, \"seconds\": %.3f, \"items_per_second\": %.0f}\n", documents.size(), seconds,
                    documents.size() / seconds);
        return 0;
    } catch (const Xapian::Error &error) {
        std::fprintf(stderr, "xapian-ceiling: %s\n", error.get_description().c_str());
    } catch (const std::exception &error) {
        std::fprintf(stderr, "xapian-ceiling: %s\n", error.what());
    }
    return 1;
}

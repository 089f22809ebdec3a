// The native baseline: the plain Xapian indexing loop a C++ programmer would write first.
//
//   xapian-baseline index DB items.jsonl      JSON Lines -> TermGenerator -> replace_document,
//                                             commit every 10,000 items
//   xapian-baseline prune DB NOW_MS           delete every item expired at NOW_MS, one commit
//
// Each prints one line of JSON with its count and seconds. Built by Benchmarks/run with
// g++ -O2 and Debian's libxapian-dev and nlohmann-json3-dev.

#include <xapian.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int index(const std::string &path, const std::string &input) {
    auto start = std::chrono::steady_clock::now();
    Xapian::WritableDatabase database(path, Xapian::DB_CREATE_OR_OPEN);
    Xapian::TermGenerator generator;
    generator.set_stemmer(Xapian::Stem("english"));
    generator.set_flags(Xapian::TermGenerator::FLAG_CJK_NGRAM);
    std::ifstream lines(input);
    std::string line;
    size_t count = 0;
    while (std::getline(lines, line)) {
        if (line.empty()) continue;
        nlohmann::json item = nlohmann::json::parse(line);
        Xapian::Document document;
        generator.set_document(document);
        generator.index_text(item.value("title", ""), 3);
        generator.increase_termpos();
        generator.index_text(item.value("contentDescription", ""));
        for (const auto &keyword : item.value("keywords", nlohmann::json::array())) {
            generator.increase_termpos();
            generator.index_text(keyword.get<std::string>(), 2);
        }
        const std::string unique = "Q" + item.value("canonicalIdentifier", "");
        document.add_boolean_term(unique);
        document.add_boolean_term("XM" + item.value("contentIndexMode", "public"));
        double expiration = item.contains("expirationDate") ? item["expirationDate"].get<double>() : 9.0e15;
        document.add_value(0, Xapian::sortable_serialise(expiration));
        document.set_data(line);
        database.replace_document(unique, document);
        if (++count % 10000 == 0) database.commit();
    }
    database.commit();
    std::printf("{\"items\": %zu, \"seconds\": %.3f}\n", count, seconds_since(start));
    return 0;
}

int prune(const std::string &path, double now_ms) {
    auto start = std::chrono::steady_clock::now();
    Xapian::WritableDatabase database(path, Xapian::DB_OPEN);
    const std::string now_key = Xapian::sortable_serialise(now_ms);
    std::vector<Xapian::docid> expired;
    for (auto it = database.valuestream_begin(0); it != database.valuestream_end(0); ++it) {
        if (*it <= now_key) expired.push_back(it.get_docid());
    }
    for (Xapian::docid id : expired) database.delete_document(id);
    database.commit();
    std::printf("{\"items\": %zu, \"seconds\": %.3f}\n", expired.size(), seconds_since(start));
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    try {
        std::string command = argc > 1 ? argv[1] : "";
        if (command == "index" && argc == 4) return index(argv[2], argv[3]);
        if (command == "prune" && argc == 4) return prune(argv[2], std::stod(argv[3]));
        std::fprintf(stderr, "usage: xapian-baseline index DB JSONL | prune DB NOW_MS\n");
        return 64;
    } catch (const Xapian::Error &error) {
        std::fprintf(stderr, "xapian-baseline: %s\n", error.get_description().c_str());
    } catch (const std::exception &error) {
        std::fprintf(stderr, "xapian-baseline: %s\n", error.what());
    }
    return 1;
}

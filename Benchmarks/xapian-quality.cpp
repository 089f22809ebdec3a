// The plain Xapian baseline of Benchmarks/quality: omega's layout (title and text in one
// unprefixed term space, title words with wdf 3), English stems, BM25 as Xapian ships it.
//
//   xapian-quality DOCS QUERIES [and]
//
// DOCS: one document a line, `id<TAB>title<TAB>text`. QUERIES: one question a line,
// `qid<TAB>text`. Prints the best 100 documents of each question as `qid<TAB>id`, best first.
// The text is parsed by Xapian's QueryParser with OR between words (omega's default), or AND
// when the third argument is `and`.

#include <xapian.h>

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> fields(const std::string &line) {
    std::vector<std::string> parts;
    size_t begin = 0;
    for (size_t tab; (tab = line.find('\t', begin)) != std::string::npos; begin = tab + 1)
        parts.push_back(line.substr(begin, tab - begin));
    parts.push_back(line.substr(begin));
    return parts;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        std::cerr << "usage: xapian-quality DOCS QUERIES [and]\n";
        return 64;
    }
    try {
        Xapian::WritableDatabase database(std::string(), Xapian::DB_BACKEND_INMEMORY);
        Xapian::TermGenerator generator;
        generator.set_stemmer(Xapian::Stem("english"));
        std::ifstream documents(argv[1]);
        for (std::string line; std::getline(documents, line);) {
            const std::vector<std::string> parts = fields(line);
            if (parts.size() < 3) continue;
            Xapian::Document document;
            generator.set_document(document);
            generator.index_text(parts[1], 3);
            generator.increase_termpos(100);
            generator.index_text(parts[2]);
            document.set_data(parts[0]);
            database.add_document(document);
        }
        Xapian::QueryParser parser;
        parser.set_stemmer(Xapian::Stem("english"));
        parser.set_stemming_strategy(Xapian::QueryParser::STEM_SOME);
        parser.set_database(database);
        const bool all = argc > 3 && std::string(argv[3]) == "and";
        parser.set_default_op(all ? Xapian::Query::OP_AND : Xapian::Query::OP_OR);
        Xapian::Enquire enquire(database);
        std::ifstream queries(argv[2]);
        for (std::string line; std::getline(queries, line);) {
            const std::vector<std::string> parts = fields(line);
            if (parts.size() < 2) continue;
            enquire.set_query(parser.parse_query(parts[1]));
            const Xapian::MSet found = enquire.get_mset(0, 100);
            for (auto it = found.begin(); it != found.end(); ++it)
                std::cout << parts[0] << '\t' << it.get_document().get_data() << '\n';
        }
    } catch (const Xapian::Error &error) {
        std::cerr << error.get_description() << '\n';
        return 1;
    }
    return 0;
}

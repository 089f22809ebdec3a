// Languages: which one an item's words are in, told by Compact Language Detector 2 (Debian's
// libcld2) when the item does not say, and the Snowball stemmer of each (SPEC §2.5).

#include "language.hpp"

#include <cstdio>  // compact_lang_det.h uses FILE without including it

#include <algorithm>
#include <array>
#include <atomic>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_set>

#include <cld2/public/compact_lang_det.h>
#include <cld2/public/encodings.h>

#include "database.hpp"
#include "errors.hpp"
#include "matching.hpp"
#include "include/CXapian.h"
#include "schema.hpp"
#include "text.hpp"

namespace cx {

namespace {

/// The languages Xapian 1.4's Snowball stemmers stem, by ISO 639-1 code (Norwegian's three).
constexpr std::array<const char *, 26> stemmed = {"ar", "hy", "eu", "ca", "da", "nl", "en", "fi", "fr",
                                                  "de", "hu", "id", "ga", "it", "lt", "ne", "nb", "nn",
                                                  "no", "pt", "ro", "ru", "es", "sv", "ta", "tr"};

bool is_stemmed(const std::string &code) {
    return std::find(stemmed.begin(), stemmed.end(), code) != stemmed.end();
}

bool is_cjk(const std::string &code) { return code == "zh" || code == "ja" || code == "ko"; }

/// The least score (CLD2's normalised score: how well the text's n-grams fit the language, per
/// kilobyte) a language is told by. Measured: real text scores 400 to 2,000 (the sample corpus: 3
/// of 319 items under 500; held-out sentences: 5 of 100), made-up words under 500 (the benchmark
/// corpus: 1,898 of its 1,900 items that are not Chinese; of its 1,000,000 items, 15 are told
/// Irish, French or Norwegian).
constexpr double least_score = 350;

/// The language expected (the index's default) is CLD2's prior for a text of at least this many
/// words (`words_in`): it keeps long English texts English (without it, 114 of CACM's 3,204
/// articles are told another language), but it makes short texts in other languages English (of
/// 1,000 short texts of Debian's translations, en, fr, de, es and it, 79 % were told right with it
/// for every text, 83 % with it from eight words, 87 % with none).
constexpr size_t prior_words = 8;

/// A text of fewer words than this is told a language other than the one expected only when it
/// fits it at least `least_short_score`: without the prior, CACM's titles of four words
/// (`Free Field Read (Algorithm 239 [I5])`) are told Irish, Norwegian or Romanian at 400 to 650.
constexpr size_t short_words = 5;
constexpr double least_short_score = 700;

/// The number of words of `text` (`words_in`): its runs of characters other than spaces that hold
/// at least two letters (a character beyond ASCII counting as one), so that numbers and marks
/// (`239`, `[I5])`) do not make a title longer.
size_t words_in(const std::string &text) {
    size_t words = 0;
    size_t letters = 0;
    const auto end_word = [&] {
        if (letters >= 2) ++words;
        letters = 0;
    };
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte == ' ' || byte == '\t' || byte == '\n' || byte == '\r') {
            end_word();
        } else if ((byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') || byte >= 0xC0) {
            ++letters;
        }
    }
    end_word();
    return words;
}

/// The stemmer of a language Snowball has none for: every word its own stem, so that each of an
/// item's words still has a stem (`is_match_term`), and matches as written.
class AsWritten : public Xapian::StemImplementation {
  public:
    std::string operator()(const std::string &word) override { return word; }
    std::string get_description() const override { return "as written"; }
};

/// The stop word lists, by language code, each word folded and lower-cased (`cx_load_stop_words`).
using StopLists = std::map<std::string, std::unordered_set<std::string>>;

/// The lists loaded, published once and never changed or freed: readers take them without a lock.
std::atomic<const StopLists *> stop_lists{nullptr};

/// The lists of `folder`: each `<code>.txt` of a language Searchlight stems, one word per line.
StopLists read_stop_lists(const std::string &folder) {
    StopLists lists;
    for (const char *code : stemmed) {
        std::ifstream file(folder + "/" + code + ".txt");
        std::string line;
        while (file && std::getline(file, line)) {
            while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
            if (!line.empty()) lists[code].insert(fold_lower(line));
        }
    }
    return lists;
}

}  // namespace

std::string language_code(const std::string &tag) {
    std::string code;
    for (const char c : tag) {
        if (c == '-' || c == '_') break;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return std::string();
        code += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    return code.size() == 2 || code.size() == 3 ? code : std::string();
}

bool is_read(const std::string &code) { return is_stemmed(code) || is_cjk(code); }

std::string stemming_of(const std::string &code) {
    if (is_stemmed(code)) return code;
    return is_cjk(code) ? "en" : std::string();
}

const Xapian::Stem &stemmer_for(const std::string &code) {
    // Each thread its own: a stemmer is not shared between threads.
    thread_local std::map<std::string, Xapian::Stem> stemmers;
    const std::string stemming = stemming_of(code);
    auto found = stemmers.find(stemming);
    if (found == stemmers.end())
        found = stemmers.emplace(stemming, stemming.empty() ? Xapian::Stem(new AsWritten) : Xapian::Stem(stemming))
                    .first;
    return found->second;
}

std::vector<std::string> stemmings(const std::vector<std::string> &codes) {
    std::vector<std::string> read;
    for (const std::string &code : codes) {
        const std::string stemming = stemming_of(code);
        if (std::find(read.begin(), read.end(), stemming) == read.end()) read.push_back(stemming);
    }
    if (read.empty()) read.emplace_back("en");
    return read;
}

namespace {

/// The most steps `share_an_item` takes: two long lists that interleave without meeting would
/// otherwise be walked whole (a form 100,000 English items hold, against 500,000 German items).
constexpr unsigned most_shared_steps = 256;

/// Whether some item holds both `first` and `second`: their posting lists walked together, each
/// skipping to the other's item; true past `most_shared_steps`. Through a shard server the
/// servers' matchers look, each among its own items: Xapian 1.4's remote backend sends a posting
/// list whole when it is opened, and a language's list at 1,000,000 items took seconds to come.
bool share_an_item(const cx_database &database, const std::string &first, const std::string &second) {
    const Xapian::Database &reader = database.reader;
    if (database.remote) {
        Xapian::Enquire enquire(reader);
        set_counting_query(enquire, reader, Xapian::Query(Xapian::Query::OP_AND, Xapian::Query(first),
                                                          Xapian::Query(second)));
        return enquire.get_mset(0, 1, 1).size() > 0;
    }
    Xapian::PostingIterator a = reader.postlist_begin(first), b = reader.postlist_begin(second);
    const Xapian::PostingIterator a_end = reader.postlist_end(first), b_end = reader.postlist_end(second);
    for (unsigned steps = 0; a != a_end && b != b_end; ++steps) {
        if (*a == *b || steps == most_shared_steps) return true;
        if (*a < *b)
            a.skip_to(*b);
        else
            b.skip_to(*a);
    }
    return false;
}

}  // namespace

ItemLanguages item_languages(const Xapian::Database &reader) {
    ItemLanguages languages;
    const std::string prefix = attribute_term(slot::language, std::string());
    each_term(reader, prefix, [&](const std::string &term, Xapian::doccount items) {
        languages.emplace_back(term.substr(prefix.size()), items);
    });
    return languages;
}

bool held_in_stemming(const cx_database &database, const ItemLanguages &languages, const std::string &term,
                      const std::string &stemming) {
    std::vector<std::string> reading;
    Xapian::doccount others = 0;
    for (const auto &[code, items] : languages) {
        if (stemming_of(language_code(code)) == stemming)
            reading.push_back(attribute_term(slot::language, code));
        else
            others += items;
    }
    const Xapian::doccount holders = database.reader.get_termfreq(term);
    // Every item read so (or none recorded): any item that holds the form. Held by more items than
    // the other languages have: some of them are read so.
    if (others == 0 || holders > others) return holders > 0;
    if (holders == 0) return false;
    return std::any_of(reading.begin(), reading.end(),
                       [&](const std::string &language) { return share_an_item(database, term, language); });
}

bool is_stop_word(const std::vector<std::string> &codes, const std::string &folded) {
    const StopLists *lists = stop_lists.load(std::memory_order_acquire);
    if (lists == nullptr) return false;
    return std::any_of(codes.begin(), codes.end(), [&](const std::string &code) {
        const auto list = lists->find(code);
        return list != lists->end() && list->second.count(folded) > 0;
    });
}

std::string detect_language(const std::string &text, const std::string &domain, const std::string &expected) {
    // Best effort: a title of a few words is told too, where CLD2 would otherwise give up. CLD2's
    // likeliest language, when Searchlight reads it and the text fits it well enough
    // (`least_score`; `least_short_score` for a short text in another language than the one
    // expected), else none. A country's domain (`de`) leans the scores towards its language, and
    // the language expected too in a text long enough (`prior_words`).
    const size_t words = words_in(text);
    const std::string tld = domain.substr(domain.find_last_of('.') + 1);
    CLD2::CLDHints hints = {nullptr, tld.empty() ? nullptr : tld.c_str(), CLD2::UNKNOWN_ENCODING,
                            words >= prior_words ? CLD2::GetLanguageFromName(expected.c_str())
                                                 : CLD2::UNKNOWN_LANGUAGE};
    CLD2::Language likeliest[3];
    int percents[3];
    double scores[3];
    int bytes = 0;
    bool reliable = false;
    CLD2::ExtDetectLanguageSummary(text.data(), static_cast<int>(text.size()), true, &hints,
                                   CLD2::kCLDFlagBestEffort, likeliest, percents, scores, nullptr, &bytes,
                                   &reliable);
    if (likeliest[0] == CLD2::UNKNOWN_LANGUAGE) return std::string();
    const std::string code = language_code(CLD2::LanguageCode(likeliest[0]));
    // The language expected is the likeliest: the text is in it, however little it fits it. Only
    // the likeliest counts: made-up words fit English, Scots Gaelic or Estonian a little, and Irish
    // or French a little more than 350 in second place (the benchmark corpus: of 1,000,000 items,
    // 99 told a language thus, 15 when only the likeliest counts; the other measures unchanged).
    if (!expected.empty() && code == expected) return code;
    const bool short_other = !expected.empty() && words < short_words;
    return is_read(code) && scores[0] >= (short_other ? least_short_score : least_score) ? code : std::string();
}

}  // namespace cx

extern "C" {

size_t cx_detect_language(cx_text text, cx_text host, cx_text expected, char *out_code, size_t capacity) {
    try {
        const std::string code = cx::detect_language(cx::str(text), cx::str(host), cx::str(expected));
        if (out_code == nullptr || capacity <= code.size()) return 0;
        std::copy(code.begin(), code.end(), out_code);
        out_code[code.size()] = '\0';
        return code.size();
    } catch (...) {
        return 0;
    }
}

size_t cx_load_stop_words(cx_text folder) {
    try {
        if (const cx::StopLists *loaded = cx::stop_lists.load(std::memory_order_acquire)) return loaded->size();
        auto lists = std::make_unique<cx::StopLists>(cx::read_stop_lists(cx::str(folder)));
        if (lists->empty()) return 0;
        const cx::StopLists *expected = nullptr;
        if (cx::stop_lists.compare_exchange_strong(expected, lists.get(), std::memory_order_acq_rel))
            return lists.release()->size();
        return expected->size();
    } catch (...) {
        return 0;
    }
}

}  // extern "C"

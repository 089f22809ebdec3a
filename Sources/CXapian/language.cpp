// Languages: which one an item's words are in, told by Compact Language Detector 2 (Debian's
// libcld2) when the item does not say, and the Snowball stemmer of each (SPEC §2.5).

#include "language.hpp"

#include <cstdio>  // compact_lang_det.h uses FILE without including it

#include <algorithm>
#include <array>
#include <map>
#include <mutex>

#include <cld2/public/compact_lang_det.h>
#include <cld2/public/encodings.h>

#include "errors.hpp"
#include "include/CXapian.h"

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
/// kilobyte) a language is told by, English expected. Measured: real text scores 400 to 2,000
/// (the sample corpus: 3 of 319 items under 500; held-out sentences: 5 of 100), made-up words
/// under 500 (the benchmark corpus: 1,898 of its 1,900 items that are not Chinese). At 350, 315 of
/// the sample corpus's 319 items and 95 of 100 held-out sentences (93 cut to six words) are told
/// right; 3 of CACM's 3,204 abstracts and 3 of 2,000 benchmark items are told another language
/// than English (without English expected, 114 and 5).
constexpr double least_score = 350;

/// The stemmer of a language Snowball has none for: every word its own stem, so that each of an
/// item's words still has a stem (`is_match_term`), and matches as written.
class AsWritten : public Xapian::StemImplementation {
  public:
    std::string operator()(const std::string &word) override { return word; }
    std::string get_description() const override { return "as written"; }
};

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

std::string detect_language(const std::string &text, const std::string &domain, const std::string &expected) {
    // Best effort: a title of a few words is told too, where CLD2 would otherwise give up. Of its
    // three likeliest languages, the first Searchlight reads that the text fits well enough
    // (`least_score`). The language expected (the index's default) and a country's domain (`de`)
    // lean the scores towards theirs.
    const std::string tld = domain.substr(domain.find_last_of('.') + 1);
    CLD2::CLDHints hints = {nullptr, tld.empty() ? nullptr : tld.c_str(), CLD2::UNKNOWN_ENCODING,
                            CLD2::GetLanguageFromName(expected.c_str())};
    CLD2::Language likeliest[3];
    int percents[3];
    double scores[3];
    int bytes = 0;
    bool reliable = false;
    CLD2::ExtDetectLanguageSummary(text.data(), static_cast<int>(text.size()), true, &hints,
                                   CLD2::kCLDFlagBestEffort, likeliest, percents, scores, nullptr, &bytes,
                                   &reliable);
    for (size_t i = 0; i < 3; ++i) {
        if (likeliest[i] == CLD2::UNKNOWN_LANGUAGE || scores[i] < least_score) continue;
        const std::string code = language_code(CLD2::LanguageCode(likeliest[i]));
        if (is_read(code)) return code;
    }
    return std::string();
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

}  // extern "C"

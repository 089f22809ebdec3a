// Terms and values: how an item is laid out in a Xapian document.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "internal.hpp"

namespace cx {

namespace {

/// Xapian's glass backend refuses terms over 245 bytes; stay clear of it.
constexpr size_t term_limit = 240;
constexpr size_t kept_bytes = 200;

/// Whether a character can begin words: a word character outside the ranges Xapian splits into
/// CJK n-grams (a bigram is its own beginning already).
bool begins_words(unsigned ch) {
    if (!Xapian::Unicode::is_wordchar(ch)) return false;
    return ch < 0x2E80 || (ch > 0x2FFF && ch < 0x3000) || (ch > 0x9FFF && ch < 0xA700) ||
           (ch > 0xA71F && ch < 0xAC00) || (ch > 0xD7AF && ch < 0xF900) || (ch > 0xFAFF && ch < 0xFE30) ||
           (ch > 0xFE4F && ch < 0xFF00) || (ch > 0xFFEF && ch < 0x20000) || (ch > 0x2A6DF && ch < 0x2F800) ||
           ch > 0x2FA1F;
}

/// The byte lengths of `word`'s indexed beginnings, shortest first: one for each length from
/// `shortest_beginning` characters up to `longest_beginning` or the whole word, stopping at the
/// first character that does not begin words.
struct BeginningLengths {
    size_t bytes[longest_beginning - shortest_beginning + 1];
    size_t count = 0;
};

BeginningLengths beginning_lengths(const std::string &word) {
    BeginningLengths lengths;
    size_t characters = 0;
    const Xapian::Utf8Iterator end;
    for (Xapian::Utf8Iterator it(word); it != end && characters < longest_beginning && begins_words(*it);) {
        ++it;
        ++characters;
        if (characters >= shortest_beginning)
            lengths.bytes[lengths.count++] = it == end ? word.size() : static_cast<size_t>(it.raw() - word.data());
    }
    return lengths;
}

}  // namespace

uint64_t fnv1a64(const std::string &bytes) {
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (unsigned char byte : bytes) {
        hash ^= byte;
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

std::string content_digest(const std::string &data) {
    const uint64_t hash = fnv1a64(data);
    std::string value(8, '\0');
    for (int i = 0; i < 8; ++i) value[i] = static_cast<char>(hash >> (56 - 8 * i));
    return value;
}

std::string line_term(uint64_t digest) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(digest));
    return prefix::line + hex;
}

std::string bounded_term(const std::string &prefix, const std::string &value) {
    if (prefix.size() + value.size() <= term_limit) return prefix + value;
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a64(value)));
    return prefix + value.substr(0, kept_bytes) + "\x1f#" + hash;
}

std::string unique_term(const std::string &domain, const std::string &identifier) {
    return bounded_term(prefix::unique, domain + "\x1f" + identifier);
}

std::string keyword_term(const std::string &keyword) { return bounded_term(prefix::keyword, fold_lower(keyword)); }

std::string schema_term(const std::string &schema) { return bounded_term(prefix::schema, fold_lower(schema)); }

double document_expiration(const Xapian::Document &document) {
    std::string value = document.get_value(slot::expiration);
    return value.empty() ? never_ms : Xapian::sortable_unserialise(value);
}

TextTerm text_term(const std::string &term) {
    TextTerm parsed;
    parsed.stemmed = !term.empty() && term[0] == 'Z';
    parsed.word = parsed.stemmed ? term.substr(1) : term;
    const auto take = [&](const std::string &prefix, TextTerm::Field field) {
        if (parsed.word.compare(0, prefix.size(), prefix) != 0) return false;
        parsed.word.erase(0, prefix.size());
        parsed.field = field;
        return true;
    };
    if (take(prefix::description, TextTerm::description) || take(prefix::keyword_text, TextTerm::keyword)) return parsed;
    // Title words are unprefixed; every boolean prefix is upper case.
    if (!parsed.word.empty() && !(parsed.word[0] >= 'A' && parsed.word[0] <= 'Z')) parsed.field = TextTerm::title;
    return parsed;
}

TextField text_field(TextTerm::Field field) {
    static const std::string none;
    switch (field) {
        case TextTerm::title:
            return {prefix::title, prefix::title_beginning, 3};
        case TextTerm::keyword:
            return {prefix::keyword_text, prefix::keyword_beginning, 2};
        case TextTerm::description:
            return {prefix::description, prefix::description_beginning, 1};
        default:
            return {none, none, 0};
    }
}

void add_word_beginnings(Xapian::Document &document) {
    // A document lists its terms in order, so the words of a field that share a beginning come one
    // after another: each field and length keeps one beginning open, and closes it when the next
    // word does not share it.
    struct Beginning {
        std::string term;
        Xapian::termcount wdf = 0;
    };
    Beginning open[TextTerm::description + 1][longest_beginning - shortest_beginning + 1];
    std::vector<Beginning> closed;
    for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it) {
        const TextTerm term = text_term(*it);
        if (term.field == TextTerm::none || term.stemmed) continue;
        const std::string &prefix = text_field(term.field).beginnings;
        const BeginningLengths lengths = beginning_lengths(term.word);
        for (size_t i = 0; i < lengths.count; ++i) {
            const size_t bytes = lengths.bytes[i];
            Beginning &beginning = open[term.field][i];
            const bool same = !beginning.term.empty() && beginning.term.size() == prefix.size() + bytes &&
                              beginning.term.compare(prefix.size(), bytes, term.word, 0, bytes) == 0;
            if (!same) {
                if (!beginning.term.empty()) closed.push_back(std::move(beginning));
                beginning = {prefix + term.word.substr(0, bytes), 0};
            }
            beginning.wdf += it.get_wdf();
        }
    }
    for (auto &field : open) {
        for (Beginning &beginning : field) {
            if (!beginning.term.empty()) closed.push_back(std::move(beginning));
        }
    }
    for (const Beginning &beginning : closed) document.add_term(beginning.term, beginning.wdf);
}

Xapian::termcount one_occurrence_wdf(const std::string &term) {
    const TextTerm parsed = text_term(term);
    if (parsed.field != TextTerm::none) return text_field(parsed.field).wdf;
    for (TextTerm::Field field : {TextTerm::title, TextTerm::keyword, TextTerm::description}) {
        const std::string &beginnings = text_field(field).beginnings;
        if (term.compare(0, beginnings.size(), beginnings) == 0) return text_field(field).wdf;
    }
    return 0;
}

std::string repeated_term(const std::string &term, unsigned times) {
    return bounded_term(times == 1 ? prefix::repeated : prefix::repeated_often, term);
}

void add_repeated_terms(Xapian::Document &document) {
    std::vector<std::string> repeated;
    for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it) {
        const Xapian::termcount one = one_occurrence_wdf(*it);
        if (one == 0) continue;
        for (unsigned times = 1; times <= most_repeats && it.get_wdf() > times * one; ++times) {
            repeated.push_back(repeated_term(*it, times));
        }
    }
    for (const std::string &term : repeated) document.add_boolean_term(term);
}

namespace {

/// Whether `term` is a free-text word as the term generator placed it (with positions): a title,
/// keyword or description word, not a stem.
bool is_placed_word(const std::string &term) {
    const TextTerm parsed = text_term(term);
    return parsed.field != TextTerm::none && !parsed.stemmed;
}

/// The `most_common_words` terms of each field in `counted` (term, items) that are in at least
/// `least` items.
CommonWords most_frequent(std::vector<std::pair<Xapian::doccount, std::string>> counted, double least) {
    std::sort(counted.begin(), counted.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    CommonWords common;
    common.chosen = true;
    std::unordered_map<int, size_t> kept;
    for (auto &[items, term] : counted) {
        if (items < least) break;
        if (kept[text_term(term).field]++ < most_common_words) common.terms.insert(std::move(term));
    }
    return common;
}

}  // namespace

CommonWords CommonWords::recorded(const Xapian::Database &database) {
    const std::string list = database.get_metadata(common_words_key);
    CommonWords common;
    if (list.empty()) return common;
    common.chosen = true;
    // The list ends with a newline, so that an index with no common words still records a choice.
    for (size_t begin = 0, end; (end = list.find('\n', begin)) != std::string::npos; begin = end + 1) {
        if (end > begin) common.terms.insert(list.substr(begin, end - begin));
    }
    return common;
}

CommonWords CommonWords::of_index(const Xapian::Database &database) {
    std::vector<std::pair<Xapian::doccount, std::string>> counted;
    const double least = database.get_doccount() * common_share;
    // Title words are unprefixed and every boolean prefix is upper case: the title words are the
    // terms before "A" and after "Z", and the other fields' words are under their prefixes.
    const auto gather = [&](Xapian::TermIterator it, const std::string &below) {
        for (; it != database.allterms_end() && (below.empty() || *it < below); ++it) {
            if (it.get_termfreq() >= least && is_placed_word(*it)) counted.emplace_back(it.get_termfreq(), *it);
        }
    };
    gather(database.allterms_begin(), "A");
    Xapian::TermIterator after_upper = database.allterms_begin();
    after_upper.skip_to("[");
    gather(after_upper, "");
    for (const std::string *field : {&prefix::keyword_text, &prefix::description}) {
        for (auto it = database.allterms_begin(*field); it != database.allterms_end(*field); ++it) {
            if (it.get_termfreq() >= least) counted.emplace_back(it.get_termfreq(), *it);
        }
    }
    return most_frequent(std::move(counted), least);
}

CommonWords CommonWords::of_documents(const std::vector<Xapian::Document> &documents) {
    std::unordered_map<std::string, Xapian::doccount> items;
    for (const Xapian::Document &document : documents) {
        for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it) {
            if (it.positionlist_count() > 0 && is_placed_word(*it)) ++items[*it];
        }
    }
    std::vector<std::pair<Xapian::doccount, std::string>> counted;
    for (auto &[term, count] : items) counted.emplace_back(count, term);
    return most_frequent(std::move(counted), documents.size() * common_share);
}

void CommonWords::record(Xapian::WritableDatabase &writer) const {
    if (!chosen) {
        writer.set_metadata(common_words_key, std::string());
        return;
    }
    std::vector<std::string> sorted(terms.begin(), terms.end());
    std::sort(sorted.begin(), sorted.end());
    std::string list;
    for (const std::string &term : sorted) list += term + '\n';
    writer.set_metadata(common_words_key, list.empty() ? std::string("\n") : list);
}

std::shared_ptr<const CommonWords> phrase_common_words(cx_database &database) {
    const Xapian::Database &reader = database.reader;
    const auto read = [&reader] {
        const bool paired = reader.get_metadata(format_key) == format;
        return std::make_shared<const CommonWords>(paired ? CommonWords::recorded(reader) : CommonWords());
    };
    if (database.sharded) return std::make_shared<const CommonWords>();
    return per_revision(database, database.common_words, read);
}

std::string pair_term(const std::string &first, const std::string &second) {
    return bounded_term(prefix::pair, first + '\x1f' + second);
}

void add_pairs(Xapian::Document &document, const CommonWords &common) {
    if (!common.chosen) {
        document.add_boolean_term(prefix::no_pairs);
        return;
    }
    // The positions of the common words; fields are 100 positions apart, so that two words next to
    // each other are in the same field, as a phrase needs them.
    std::vector<std::pair<Xapian::termpos, std::string>> placed;
    for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it) {
        if (common.terms.count(*it) == 0) continue;
        for (auto position = it.positionlist_begin(); position != it.positionlist_end(); ++position)
            placed.emplace_back(*position, *it);
    }
    std::sort(placed.begin(), placed.end());
    std::vector<std::string> pairs;
    for (size_t i = 0; i < placed.size(); ++i) {
        for (size_t j = i + 1; j < placed.size() && placed[j].first <= placed[i].first + 1; ++j) {
            if (placed[j].first == placed[i].first + 1) pairs.push_back(pair_term(placed[i].second, placed[j].second));
        }
    }
    for (const std::string &term : pairs) document.add_boolean_term(term);
}

bool is_plain_word(const std::string &word) {
    if (word.empty()) return false;
    for (Xapian::Utf8Iterator it(word), end; it != end; ++it) {
        if (!begins_words(*it)) return false;
    }
    return true;
}

bool is_indexed_beginning(const std::string &word) {
    const BeginningLengths lengths = beginning_lengths(word);
    return lengths.count > 0 && lengths.bytes[lengths.count - 1] == word.size();
}

int64_t document_views(const Xapian::Document &document) {
    const std::string value = document.get_value(slot::views);
    return value.empty() ? 0 : std::strtoll(value.c_str(), nullptr, 10);
}

void set_document_views(Xapian::Document &document, int64_t views) {
    if (views <= 0) {
        // Xapian throws when asked to remove a value that is not there.
        if (!document.get_value(slot::views).empty()) document.remove_value(slot::views);
        if (!document.get_value(slot::view_boost).empty()) document.remove_value(slot::view_boost);
        return;
    }
    document.add_value(slot::views, std::to_string(views));
    document.add_value(slot::view_boost, Xapian::sortable_serialise(view_boost(views)));
}

double view_boost(int64_t views) {
    if (views <= 0) return 0;
    return std::min(1.0, std::log1p(static_cast<double>(views)) / std::log1p(1000.0));
}

}  // namespace cx

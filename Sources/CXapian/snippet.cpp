// Snippets: the description around the first match, with the matched words as byte ranges.

#include "snippet.hpp"

#include <algorithm>

#include "schema.hpp"
#include "text.hpp"

namespace cx {

namespace {

/// Han, kana, hangul and their punctuation-free neighbours: the scripts Xapian's CJK n-grams cover.
bool is_cjk(unsigned cp) {
    return (cp >= 0x2E80 && cp <= 0x2FDF) || (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x3100 && cp <= 0x31FF) ||
           (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x2FA1F);
}

/// Whether an ASCII character is a word's (`Xapian::Unicode::is_wordchar`).
bool is_ascii_word_char(unsigned c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

struct Token {
    size_t begin, end;  // byte offsets
    bool matched;
};

const std::string ellipsis = "\xE2\x80\xA6";  // …

}  // namespace

bool Highlighter::matches(const std::string &word) const {
    if (std::find(words.begin(), words.end(), word) != words.end()) return true;
    for (const auto &prefix : prefixes) {
        if (word.compare(0, prefix.size(), prefix) == 0) return true;
    }
    // Snowball's stemmers rewrite endings only, so a word whose first byte starts no stem cannot
    // stem to one: most words are ruled out without stemming them.
    if (word.empty() || std::none_of(stems.begin(), stems.end(), [&](const std::string &stem) {
            return !stem.empty() && stem.front() == word.front();
        }))
        return false;
    if (const auto known = stemmed_.find(word); known != stemmed_.end()) return known->second;
    const bool stems_to_one = std::any_of(stemmers.begin(), stemmers.end(), [&](const Xapian::Stem &stemmer) {
        return std::find(stems.begin(), stems.end(), stemmer(word)) != stems.end();
    });
    // Bounded: a long page of long descriptions holds a few thousand words at most.
    if (stemmed_.size() >= 8192) stemmed_.clear();
    stemmed_.emplace(word, stems_to_one);
    return stems_to_one;
}

Snippet make_snippet(const std::string &text, const Highlighter &highlighter, size_t max_chars) {
    // Tokenise the original text, remembering byte ranges, so the snippet keeps accents and case.
    std::vector<Token> tokens;
    std::vector<size_t> char_offsets;  // byte offset of each code point
    std::string word;
    size_t word_begin = 0;
    bool in_word = false;
    auto finish_word = [&](size_t end) {
        if (!in_word) return;
        tokens.push_back({word_begin, end, highlighter.matches(fold_lower(word))});
        word.clear();
        in_word = false;
    };
    std::string previous_cjk;
    char_offsets.reserve(text.size());
    for (size_t offset = 0, next; offset < text.size(); offset = next) {
        char_offsets.push_back(offset);
        unsigned cp = static_cast<unsigned char>(text[offset]);
        if (cp < 0x80) {
            // ASCII, most of most descriptions: a word's characters are its letters, digits and
            // underscores, as Xapian's Unicode categories say.
            next = offset + 1;
            previous_cjk.clear();
            if (is_ascii_word_char(cp)) {
                if (!in_word) {
                    in_word = true;
                    word_begin = offset;
                }
                word.push_back(static_cast<char>(cp));
            } else {
                finish_word(offset);
            }
            continue;
        }
        Xapian::Utf8Iterator it(text.data() + offset, text.size() - offset);
        cp = *it;
        next = static_cast<size_t>((++it).raw() - text.data());
        if (is_cjk(cp)) {
            finish_word(offset);
            std::string character;
            Xapian::Unicode::append_utf8(character, cp);
            size_t end = offset + character.size();
            bool matched = highlighter.matches(character) ||
                           (!previous_cjk.empty() && highlighter.matches(previous_cjk + character));
            if (matched && !previous_cjk.empty() && !tokens.empty() && tokens.back().end == offset &&
                highlighter.matches(previous_cjk + character)) {
                tokens.back().matched = true;
            }
            tokens.push_back({offset, end, matched});
            previous_cjk = character;
        } else if (Xapian::Unicode::is_wordchar(cp)) {
            previous_cjk.clear();
            if (!in_word) {
                in_word = true;
                word_begin = offset;
            }
            Xapian::Unicode::append_utf8(word, cp);
        } else {
            previous_cjk.clear();
            finish_word(offset);
        }
    }
    finish_word(text.size());

    // Choose the window: the whole text when short, else around the first match.
    size_t total_chars = char_offsets.size();
    size_t begin_byte = 0, end_byte = text.size();
    if (total_chars > max_chars) {
        size_t first_match_byte = 0;
        for (const auto &token : tokens) {
            if (token.matched) {
                first_match_byte = token.begin;
                break;
            }
        }
        size_t match_char = std::lower_bound(char_offsets.begin(), char_offsets.end(), first_match_byte) -
                            char_offsets.begin();
        size_t start_char = match_char > max_chars / 4 ? match_char - max_chars / 4 : 0;
        if (start_char + max_chars > total_chars) start_char = total_chars - max_chars;
        size_t end_char = start_char + max_chars;
        begin_byte = char_offsets[start_char];
        end_byte = end_char < total_chars ? char_offsets[end_char] : text.size();
        // Snap to whole tokens so no word is cut in half.
        for (const auto &token : tokens) {
            if (token.begin < begin_byte && token.end > begin_byte) begin_byte = token.end;
            if (token.begin < end_byte && token.end > end_byte) end_byte = token.begin;
        }
    }

    Snippet snippet;
    if (begin_byte > 0) snippet.text = ellipsis;
    const size_t shift = snippet.text.size();
    snippet.text.append(text, begin_byte, end_byte - begin_byte);
    for (const auto &token : tokens) {
        if (!token.matched || token.begin < begin_byte || token.end > end_byte) continue;
        const auto offset = static_cast<uint32_t>(token.begin - begin_byte + shift);
        const auto length = static_cast<uint32_t>(token.end - token.begin);
        // Adjacent matches (CJK characters are tokens of their own) make one range.
        if (!snippet.matches.empty() && snippet.matches.back().offset + snippet.matches.back().length == offset) {
            snippet.matches.back().length += length;
        } else {
            snippet.matches.push_back({offset, length});
        }
    }
    if (end_byte < text.size()) snippet.text += ellipsis;
    return snippet;
}

}  // namespace cx

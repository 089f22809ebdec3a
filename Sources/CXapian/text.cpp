// Accent folding and snippets.

#include <algorithm>

#include "internal.hpp"

namespace cx {

namespace {

/// ASCII spellings of U+00C0 … U+017F; an empty entry keeps the character.
const char *const latin_folds[] = {
    // U+00C0
    "A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I", "I",
    // U+00D0
    "D", "N", "O", "O", "O", "O", "O", "", "O", "U", "U", "U", "U", "Y", "TH", "ss",
    // U+00E0
    "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
    // U+00F0
    "d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "y",
    // U+0100
    "A", "a", "A", "a", "A", "a", "C", "c", "C", "c", "C", "c", "C", "c", "D", "d",
    // U+0110
    "D", "d", "E", "e", "E", "e", "E", "e", "E", "e", "E", "e", "G", "g", "G", "g",
    // U+0120
    "G", "g", "G", "g", "H", "h", "H", "h", "I", "i", "I", "i", "I", "i", "I", "i",
    // U+0130
    "I", "i", "IJ", "ij", "J", "j", "K", "k", "k", "L", "l", "L", "l", "L", "l", "L",
    // U+0140
    "l", "L", "l", "N", "n", "N", "n", "N", "n", "n", "N", "n", "O", "o", "O", "o",
    // U+0150
    "O", "o", "OE", "oe", "R", "r", "R", "r", "R", "r", "S", "s", "S", "s", "S", "s",
    // U+0160
    "S", "s", "T", "t", "T", "t", "T", "t", "U", "u", "U", "u", "U", "u", "U", "u",
    // U+0170
    "U", "u", "U", "u", "W", "w", "Y", "y", "Y", "Z", "z", "Z", "z", "Z", "z", "s",
};

bool is_combining_mark(unsigned cp) { return cp >= 0x300 && cp <= 0x36F; }

/// Han, kana, hangul and their punctuation-free neighbours: the scripts Xapian's CJK n-grams cover.
bool is_cjk(unsigned cp) {
    return (cp >= 0x2E80 && cp <= 0x2FDF) || (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x3100 && cp <= 0x31FF) ||
           (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x2FA1F);
}

void append_escaped(std::string &out, const std::string &text, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
        switch (text[i]) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += text[i];
        }
    }
}

struct Token {
    size_t begin, end;  // byte offsets
    bool matched;
};

}  // namespace

std::string fold_accents(const std::string &text) {
    std::string out;
    out.reserve(text.size());
    for (Xapian::Utf8Iterator it(text); it != Xapian::Utf8Iterator(); ++it) {
        unsigned cp = *it;
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp >= 0xC0 && cp <= 0x17F && latin_folds[cp - 0xC0][0] != '\0') {
            out += latin_folds[cp - 0xC0];
        } else if (!is_combining_mark(cp)) {
            Xapian::Unicode::append_utf8(out, cp);
        }
    }
    return out;
}

std::string fold_lower(const std::string &text) { return Xapian::Unicode::tolower(fold_accents(text)); }

std::string straighten_quotes(const std::string &text) {
    std::string out;
    out.reserve(text.size());
    for (Xapian::Utf8Iterator it(text); it != Xapian::Utf8Iterator(); ++it) {
        unsigned cp = *it;
        if (cp == 0x201C || cp == 0x201D || cp == 0x201E || cp == 0x201F || cp == 0x00AB || cp == 0x00BB) {
            out += '"';
        } else {
            Xapian::Unicode::append_utf8(out, cp);
        }
    }
    return out;
}

bool Highlighter::matches(const std::string &word) const {
    if (std::find(words.begin(), words.end(), word) != words.end()) return true;
    for (const auto &prefix : prefixes) {
        if (word.compare(0, prefix.size(), prefix) == 0) return true;
    }
    if (stems.empty()) return false;
    std::string stem = stemmer(word);
    return std::find(stems.begin(), stems.end(), stem) != stems.end();
}

std::string make_snippet(const std::string &text, const Highlighter &highlighter, size_t max_chars) {
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
    for (Xapian::Utf8Iterator it(text); it != Xapian::Utf8Iterator(); ++it) {
        size_t offset = static_cast<size_t>(it.raw() - text.data());
        char_offsets.push_back(offset);
        unsigned cp = *it;
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
    bool cut_before = false, cut_after = false;
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
        cut_before = begin_byte > 0;
        cut_after = end_byte < text.size();
    }

    std::string out;
    if (cut_before) out += "\xE2\x80\xA6";  // …
    size_t position = begin_byte;
    for (const auto &token : tokens) {
        if (!token.matched || token.begin < begin_byte || token.end > end_byte) continue;
        append_escaped(out, text, position, token.begin);
        out += "<mark>";
        append_escaped(out, text, token.begin, token.end);
        out += "</mark>";
        position = token.end;
    }
    append_escaped(out, text, position, end_byte);
    if (cut_after) out += "\xE2\x80\xA6";
    // Merge adjacent marks (CJK characters are tokens of their own).
    std::string merged;
    merged.reserve(out.size());
    const std::string seam = "</mark><mark>";
    for (size_t i = 0; i < out.size();) {
        if (out.compare(i, seam.size(), seam) == 0) {
            i += seam.size();
        } else {
            merged += out[i++];
        }
    }
    return merged;
}

}  // namespace cx

extern "C" cx_status cx_fold_accents(cx_text text, char **out, size_t *out_length, char **out_error) {
    try {
        std::string folded = cx::fold_accents(cx::str(text));
        *out = cx::copy_bytes(folded);
        *out_length = folded.size();
        return CX_OK;
    } catch (...) {
        *out = nullptr;
        return cx::status_from_current_exception(out_error);
    }
}

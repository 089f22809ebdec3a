// What language.cpp offers the other files of the shim: the languages an item's words are read in
// (SPEC §2.5), and the stemmer of each.
#pragma once

#include <xapian.h>

#include <string>
#include <utility>
#include <vector>

struct cx_database;

namespace cx {

/// The language `text` is written in, as an ISO 639-1 code (`fr`), as Compact Language Detector 2
/// reads it, among the languages Searchlight reads (`is_read`); empty when it cannot tell. `host`
/// (`cuisine.example.fr`), where the text is published, may be empty; its last label hints, and so
/// does `expected`, the language most texts are in (`en`; empty for none).
std::string detect_language(const std::string &text, const std::string &host, const std::string &expected);

/// `tag` (`fr`, `FR`, `fr-CA`, `zh_Hant`) as the code the index keeps: its first subtag, lower
/// case; empty when it is not one of two or three letters.
std::string language_code(const std::string &tag);

/// Whether Searchlight reads `code`'s words: a language Xapian's Snowball stemmers stem, or
/// Chinese, Japanese or Korean, which are matched by n-grams.
bool is_read(const std::string &code);

/// The stemmer for the words of an item in `code`: the language's own; for Chinese, Japanese and
/// Korean, whose words are n-grams, English's, for the Latin words among them; for any other
/// language, one that leaves every word as written.
const Xapian::Stem &stemmer_for(const std::string &code);

/// The language whose stemmer `stemmer_for(code)` is, by which two languages read a word alike:
/// `code`, `en` for Chinese, Japanese and Korean, empty for none.
std::string stemming_of(const std::string &code);

/// The languages a query is read in: the distinct stemmings (`stemming_of`) of `codes`, in order,
/// English when there is none.
std::vector<std::string> stemmings(const std::vector<std::string> &codes);

/// The languages of an index's items: each code of the `language` attribute, and how many items
/// have it (each item has one).
using ItemLanguages = std::vector<std::pair<std::string, Xapian::doccount>>;

/// The languages of `reader`'s items.
ItemLanguages item_languages(const Xapian::Database &reader);

/// Whether an item whose language reads words as `stemming` does (`stemming_of`) holds `term`, a
/// form of a word in that reading; `languages` are `reader`'s items' (`item_languages`). The
/// languages share one space of terms, so a form one language makes of a word (Norwegian's `walk`
/// of `walker`, Irish's `san` of `shan`) may be another word's form in another (English's `walk`,
/// `san`): such a form reads the word in that language only when one of the language's items holds
/// it. Where no item records another language, whether any item holds `term`.
///
/// The answer costs at most a few hundred steps of two posting lists: a form more items hold than
/// the other readings' languages have is held in this one; else the form's items are walked with
/// the language's, and past `most_shared_steps` the form is taken as held. Through a shard server,
/// one match of the two terms together on each server.
bool held_in_stemming(const cx_database &database, const ItemLanguages &languages, const std::string &term,
                      const std::string &stemming);

/// Whether `folded` (a word, accents folded and lower-cased) is a stop word of one of `codes`
/// (`cx_load_stop_words`): a word too common in its language to tell items apart. False for every
/// word before the lists are loaded, or when none is.
bool is_stop_word(const std::vector<std::string> &codes, const std::string &folded);

}  // namespace cx

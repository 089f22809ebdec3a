// What query.cpp offers the other files of the shim.
#pragma once

#include <optional>
#include <vector>

#include "database.hpp"
#include "matching.hpp"
#include "snippet.hpp"

namespace cx {

struct Snapshot;

/// A Xapian query built from the Kit's query tree, with what searching needs to know about it.
struct BuiltQuery {
    Xapian::Query query;
    /// The tree was the empty query: every item, each scored 100.
    bool matches_everything = false;
    /// What the query's positive words highlight in descriptions.
    Highlighter highlighter;
    /// A word that spelling correction may replace: its pre-order node index, its folded text, and
    /// the terms it matches.
    struct Spellable {
        uint32_t node;
        std::string word;
        Xapian::Query query;
    };
    std::vector<Spellable> spellable;
    /// The query with the words the index holds matched as typed alone, when typos gave one of them
    /// its corrections: what a search ranked by relevance ranks first, before the items only a
    /// correction finds (SPEC §2.1). Its matches are a part of `query`'s.
    std::optional<Xapian::Query> as_typed;
    /// With `as_typed`, when the tree allows (no correction of a word the index holds under an
    /// exclusion, an exclusive or, a phrase's pairs or `description:`): the items only a
    /// correction finds, `query`'s matches outside `as_typed`'s, as a query led by the lists of
    /// the corrections, which the count of those items reads (`run_typed_first`) rather than every
    /// word's lists again. Its weights mean nothing: it is only counted.
    std::optional<Xapian::Query> corrected;
    /// The factors of the query's weight scales (`as_typed`'s too).
    ScaleFactors factors;
};

/// Builds the query. Throws Xapian::InvalidArgumentError for a malformed tree.
///
/// A prefix or an as-you-type word is expanded here, to the words it begins in `database` as a
/// whole, never by the matcher: in a topology each shard would expand it from its own words and
/// weigh it by its own frequencies, and one index and a topology of the same items answer alike
/// only when both run the same query.
///
/// With `relaxed`, the plain words of the root (the words the query joins without an explicit
/// operator) match when any of them does, rather than all: the items with more of them score
/// more. Every other part of the query stays as exact as without.
///
/// With `keeping`, the read-only handle of `database` that keeps fields in memory
/// (`keeps_fields`), a range reads its number from the kept column (`column_range`) rather than
/// the slot's value stream.
///
/// A phrase of the common words a database of its own records is filtered by their pairs
/// (pairs.cpp), read once a snapshot; over shards, which may each have chosen other words, it is
/// not.
///
/// With `typos`, a plain word also matches the words of the index a typo or two from it (SPEC
/// §2.1, typos.hpp), weighing less than it where the index holds it (and then `as_typed` is
/// built too). A word excluded, or under an exclusive or, is matched as typed alone.
///
/// Words are read in each of `languages` (stemmings, `cx::stemmings`; the languages of the items
/// the search may see, `reading_languages`).
BuiltQuery build_query(const cx_database &database, Snapshot &snapshot, const cx_query_node *nodes, size_t count,
                       bool relaxed = false, cx_database *keeping = nullptr, bool typos = false,
                       const std::vector<std::string> &languages = {"en"});

/// The index of the node after the subtree at `index` (the nodes follow in pre-order).
size_t subtree_end(const cx_query_node *nodes, size_t count, size_t index);

/// The child nodes of the group at `index`, by their indices.
std::vector<size_t> children_of(const cx_query_node *nodes, size_t count, size_t index);

/// Whether the node at `index` is a plain word, or a group of plain words side by side (words in
/// parentheses): what a relaxed query lets match alone, and what a search by meaning drops to
/// select its candidates.
bool is_relaxable(const cx_query_node *nodes, size_t count, size_t index);

/// Whether `relaxed` changes what the query tree `nodes` matches: its root joins two plain words
/// or more without an explicit operator.
bool can_relax(const cx_query_node *nodes, size_t count);

}  // namespace cx

// What visibility.cpp offers the other files of the shim.
#pragma once

#include <cstdint>
#include <vector>

#include "database.hpp"
#include "read.hpp"
#include "tiers.hpp"

namespace cx {

/// A set of document ids: bit `did` of `words` is set for each member.
struct DocumentBits {
    std::vector<uint64_t> words;
    Xapian::doccount count = 0;

    /// Every document id from 1 to `last`.
    explicit DocumentBits(Xapian::docid last) : words(last / 64 + 1, ~uint64_t(0)) {
        erase(0);
        const size_t tail = (last + 1) % 64;
        if (tail != 0) words.back() &= (uint64_t(1) << tail) - 1;
    }

    void insert(Xapian::docid did) { words[did / 64] |= uint64_t(1) << (did % 64); }
    void erase(Xapian::docid did) { words[did / 64] &= ~(uint64_t(1) << (did % 64)); }

    bool contains(Xapian::docid did) const {
        const size_t word = did / 64;
        return word < words.size() && (words[word] >> (did % 64) & 1) != 0;
    }

    /// The first member at or after `did`, or 0 when there is none.
    Xapian::docid first_from(Xapian::docid did) const {
        size_t word = did / 64;
        if (word >= words.size()) return 0;
        uint64_t bits = words[word] & (~uint64_t(0) << (did % 64));
        while (bits == 0) {
            if (++word == words.size()) return 0;
            bits = words[word];
        }
        return static_cast<Xapian::docid>(word * 64 + __builtin_ctzll(bits));
    }

    /// The first id from `did` to `last` that is not a member, or 0 when there is none.
    Xapian::docid first_absent_from(Xapian::docid did, Xapian::docid last) const {
        if (did == 0) did = 1;
        for (size_t word = did / 64; did <= last; did = Xapian::docid(++word * 64)) {
            if (word >= words.size()) return did;
            const uint64_t bits = ~words[word] & (~uint64_t(0) << (did % 64));
            if (bits != 0) {
                const auto found = static_cast<Xapian::docid>(word * 64 + __builtin_ctzll(bits));
                return found <= last ? found : 0;
            }
        }
        return 0;
    }
};

/// `query` limited to the items `request`'s domain and scope may see, as `snapshot` holds them.
/// `rated`: the matches are a page whose results Xapian rates in percentages, and what the caller
/// may not see is excluded, which Xapian never counts as a part a result matches. Otherwise (a
/// count, meaning's candidates) the query is filtered by what the caller may see, a bit test a
/// match, a third quicker over many matches.
Xapian::Query visible_only(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                           const Xapian::Query &query, bool rated = true);

/// The items a search of `request` may see, as a set `snapshot` keeps: false when a search sees
/// them another way (scope private: a domain's own term; shards: boolean terms), else true, with
/// `out` the set, or null when the search sees every item.
bool visible_set(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                 std::shared_ptr<const DocumentBits> &out);

/// `visible_now` of `query` among `candidates` (ascending) alone: a filter of the candidates the
/// search may see, which Xapian counts as one more part each result matches (`tiered_page` rates
/// the results again). Nothing for scope private and shards.
std::optional<Xapian::Query> visible_now_among(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                                       const Xapian::Query &query, std::vector<Xapian::docid> candidates);

/// `query` limited to what `request` may see (`visible_only`) and to items not expired at its time.
Xapian::Query visible_now(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                          const Xapian::Query &query, bool rated = true);

}  // namespace cx

// Resolving a bulk build: which occurrence of each identity met more than once wins.

#include <algorithm>

#include "bulk.hpp"
#include "schema.hpp"

namespace cx {

namespace {

/// The latest sequence at which a recognized line kept `document`, or 0. `kept` is sorted.
uint64_t kept_sequence(const std::vector<std::pair<Xapian::docid, uint64_t>> &kept, Xapian::docid document) {
    auto it = std::upper_bound(kept.begin(), kept.end(), std::make_pair(document, UINT64_MAX));
    return it != kept.begin() && (it - 1)->first == document ? (it - 1)->second : 0;
}

/// The unique-id term of a segment's stored document, or of the current database's document.
std::string unique_of(cx_bulk &bulk, const Occurrence &occurrence) {
    Segment &segment = *bulk.segments[occurrence.segment];
    if (occurrence.stored == 0 && occurrence.base == 0) return segment.names[occurrence.name];
    Xapian::Database &database = occurrence.stored != 0 ? segment.writer : segment.base;
    const Xapian::docid id = occurrence.stored != 0 ? occurrence.stored : occurrence.base;
    Xapian::TermIterator term = database.termlist_begin(id);
    term.skip_to(cx::prefix::unique);
    return term != database.termlist_end(id) ? *term : std::string();
}

}  // namespace

std::vector<Xapian::docid> resolve(cx_bulk &bulk, cx_bulk_plan &plan) {
    std::vector<Occurrence> all;
    for (auto &segment : bulk.segments) {
        all.insert(all.end(), segment->occurrences.begin(), segment->occurrences.end());
        segment->occurrences.clear();
        segment->occurrences.shrink_to_fit();
    }
    std::sort(all.begin(), all.end(), [](const Occurrence &a, const Occurrence &b) {
        return a.identity != b.identity ? a.identity < b.identity : a.sequence < b.sequence;
    });
    std::sort(bulk.kept.begin(), bulk.kept.end());
    std::vector<Xapian::docid> superseded;
    std::vector<const Occurrence *> group;
    auto settle = [&] {
        const Occurrence &last = *group.back();
        const Xapian::docid base = last.base;
        const bool kept_later = base != 0 && kept_sequence(bulk.kept, base) > last.sequence;
        for (const Occurrence *occurrence : group) {
            const bool wins = occurrence == &last && !kept_later;
            if (!wins && occurrence->stored != 0)
                bulk.segments[occurrence->segment]->writer.delete_document(occurrence->stored);
            if (occurrence != group.front()) {
                if (occurrence->outcome == 0) ++plan.added_then_updated;
                if (occurrence->outcome == 3) ++plan.unchanged_then_updated;
            }
        }
        if (base != 0 && !kept_later && last.outcome != 3) superseded.push_back(base);
    };
    // Occurrences with the same identity hash are checked by their terms: a hash collision
    // between two identities must not merge them.
    for (size_t begin = 0; begin < all.size();) {
        size_t end = begin + 1;
        while (end < all.size() && all[end].identity == all[begin].identity) ++end;
        if (end - begin == 1) {
            group = {&all[begin]};
            settle();
        } else {
            std::vector<std::pair<std::string, const Occurrence *>> named;
            for (size_t i = begin; i < end; ++i) named.emplace_back(unique_of(bulk, all[i]), &all[i]);
            std::sort(named.begin(), named.end(), [](const auto &a, const auto &b) {
                return a.first != b.first ? a.first < b.first : a.second->sequence < b.second->sequence;
            });
            for (size_t i = 0; i < named.size();) {
                group.clear();
                size_t j = i;
                for (; j < named.size() && named[j].first == named[i].first; ++j) group.push_back(named[j].second);
                settle();
                i = j;
            }
        }
        begin = end;
    }
    std::sort(superseded.begin(), superseded.end());
    superseded.erase(std::unique(superseded.begin(), superseded.end()), superseded.end());
    return superseded;
}

}  // namespace cx

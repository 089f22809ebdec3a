// Ordering a search's results: by relevance, or by the item's attributes (`cx_sort_key`).

#include <memory>

#include "internal.hpp"

namespace cx {

/// Orders `enquire`'s results as `request` asks: by relevance alone, by its keys then relevance,
/// or by relevance then its keys. An item without a key's value comes after those with one,
/// ascending or descending.
void set_order(Xapian::Enquire &enquire, const cx_search_request &request, bool sharded) {
    const bool relevance_first = request.sort_key_count > 0 && request.sort_keys[0].slot == CX_SLOT_RELEVANCE;
    auto keys = std::make_unique<Xapian::MultiValueKeyMaker>();
    std::vector<const cx_sort_key *> by_value;
    for (size_t i = 0; i < request.sort_key_count; ++i) {
        const cx_sort_key &key = request.sort_keys[i];
        if (key.slot == CX_SLOT_RELEVANCE) continue;
        if (key.distance) {
            // Xapian's own key of a point's distance; a missing point is past any distance, or,
            // farthest first, before 0.
            const Xapian::LatLongCoords centre(Xapian::LatLongCoord(key.latitude, key.longitude));
            auto distance = new Xapian::LatLongDistanceKeyMaker(key.slot, centre, Xapian::GreatCircleMetric(),
                                                                key.descending ? -1.0 : 1e10);
            if (relevance_first)
                enquire.set_sort_by_relevance_then_key(distance->release(), key.descending);
            else
                enquire.set_sort_by_key_then_relevance(distance->release(), key.descending);
            return;
        }
        // Reversed, an empty value already sorts last; ascending, it is given one past any number.
        keys->add_value(key.slot, key.descending, key.descending ? std::string() : std::string(10, '\xff'));
        by_value.push_back(&key);
    }
    if (by_value.empty()) {
        // Equal scores come in document id order, which in a topology depends on how the items are
        // spread over its shards: there they come in the order of the items' digests instead, so
        // that any topology of the same items answers in the same order. (A single index keeps the
        // id order, which costs no value read per candidate.)
        if (sharded) enquire.set_sort_by_relevance_then_value(slot::digest, false);
        return;
    }
    // One key, descending: Xapian reads the value itself, with no key to build for each candidate
    // (a third less time sorting a common word's matches), and an empty value already sorts last.
    if (by_value.size() == 1 && by_value[0]->descending) {
        if (relevance_first)
            enquire.set_sort_by_relevance_then_value(by_value[0]->slot, true);
        else
            enquire.set_sort_by_value_then_relevance(by_value[0]->slot, true);
        return;
    }
    if (relevance_first)
        enquire.set_sort_by_relevance_then_key(keys.release()->release(), false);
    else
        enquire.set_sort_by_key_then_relevance(keys.release()->release(), false);
}

/// Orders `enquire`'s results by `request`'s first key's value alone, with relevance: what remote
/// shards can do. False when the request has no key, or orders by distance, which needs a key
/// maker.
bool sort_by_first_key(Xapian::Enquire &enquire, const cx_search_request &request) {
    const bool relevance_first = request.sort_key_count > 0 && request.sort_keys[0].slot == CX_SLOT_RELEVANCE;
    for (size_t i = 0; i < request.sort_key_count; ++i) {
        const cx_sort_key &key = request.sort_keys[i];
        if (key.slot == CX_SLOT_RELEVANCE) continue;
        if (key.distance) return false;
        if (relevance_first)
            enquire.set_sort_by_relevance_then_value(key.slot, key.descending);
        else
            enquire.set_sort_by_value_then_relevance(key.slot, key.descending);
        return true;
    }
    return false;
}

}  // namespace cx

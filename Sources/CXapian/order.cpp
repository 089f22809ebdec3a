// Ordering a search's results: by relevance, or by the item's attributes (`cx_sort_key`).

#include "order.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "columns.hpp"
#include "database.hpp"
#include "matching.hpp"
#include "percents.hpp"
#include "schema.hpp"

namespace {

/// How many pages' worth of matches a page bound lets pass, were the matches spread over the
/// values as every item is: a query's matches seldom lean so far towards the worst values that
/// fewer than a page passes, and then the page is sorted from every match.
constexpr double pages_passing = 8;

}  // namespace

namespace cx {

std::optional<PageBound> page_bound(cx_database &database, const cx_search_request &request,
                                    Xapian::doccount matches) {
    const Xapian::Database &reader = database.reader;
    if (request.sort_key_count == 0) return std::nullopt;
    const cx_sort_key &key = request.sort_keys[0];
    if (key.slot == CX_SLOT_RELEVANCE || key.distance) return std::nullopt;
    const double page = double(request.offset) + request.limit;
    if (page == 0 || matches < 20 * page) return std::nullopt;
    const std::shared_ptr<const Ranks> ranks = cx::ranks(database, key.slot);
    if (!ranks) return std::nullopt;
    std::shared_ptr<const Column> column = cx::column(database, key.slot, true);
    if (!column) return std::nullopt;
    const double share = pages_passing * page * reader.get_doccount() / (double(matches) * ranks->items);
    if (share >= 0.5) return std::nullopt;
    // The rank at or past which a share of the items lie (descending), or at or before (ascending).
    const double last = double(ranks->points.size() - 1);
    const size_t point = key.descending ? size_t(std::floor((1 - share) * last)) : size_t(std::ceil(share * last));
    const std::string &value = ranks->points[point];
    // The share of the ranks that pass, ties of the bound included: the share of the items.
    const auto &points = ranks->points;
    const auto passing = key.descending ? points.end() - std::lower_bound(points.begin(), points.end(), value)
                                        : std::upper_bound(points.begin(), points.end(), value) - points.begin();
    const double kept = double(passing) / points.size() * ranks->items / reader.get_doccount();
    const double number = Xapian::sortable_unserialise(value);
    const double infinity = std::numeric_limits<double>::infinity();
    return PageBound{column_range(column, key.descending ? number : -infinity, key.descending ? infinity : number),
                     kept};
}

/// Orders `enquire`'s results as `request` asks: by relevance alone, by its keys then relevance,
/// or by relevance then its keys. An item without a key's value comes after those with one,
/// ascending or descending.
void set_order(Xapian::Enquire &enquire, const cx_search_request &request) {
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
    if (by_value.empty()) return;
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

std::optional<SortedPage> ascending_on_shards(Xapian::Enquire &enquire, const cx_search_request &request,
                                              Xapian::doccount check_at_least, unsigned parts) {
    if (request.sort_key_count == 0) return std::nullopt;
    const cx_sort_key &key = request.sort_keys[0];
    for (size_t i = 1; i < request.sort_key_count; ++i)
        if (request.sort_keys[i].slot != CX_SLOT_RELEVANCE) return std::nullopt;
    if (key.slot == CX_SLOT_RELEVANCE || key.descending || key.distance) return std::nullopt;
    using Query = Xapian::Query;
    const Query query = enquire.get_query();
    // Every value is at least one byte; Xapian reads a bound of none as every item.
    const Query valued(Query::OP_VALUE_GE, key.slot, std::string(1, '\0'));
    // Both sets are excluded rather than filtered: Xapian counts a value range it filters by as a
    // part of the query each result matches, which would raise the percentages.
    const Query with_value_only(Query::OP_AND_NOT, query, Query(Query::OP_AND_NOT, cx::match_all(), valued));
    enquire.set_query(with_value_only);
    enquire.set_sort_by_value_then_relevance(key.slot, false);
    Xapian::MSet first = enquire.get_mset(request.offset, request.limit, check_at_least);
    const Xapian::doccount with_value = first.get_matches_estimated();
    SortedPage page;
    page.estimated = first.get_matches_lower_bound() != first.get_matches_upper_bound();
    // The page reaches the items without a value only when fewer than it hold one: then every
    // match was seen, and their count is exact.
    const Xapian::doccount left = request.limit - first.size();
    const Xapian::doccount skipped = request.offset > with_value ? request.offset - with_value : 0;
    enquire.set_query(Query(Query::OP_AND_NOT, query, valued));
    enquire.set_sort_by_relevance();
    const Xapian::MSet rest = enquire.get_mset(skipped, std::max<Xapian::doccount>(left, 1), check_at_least);
    page.matches = with_value + rest.get_matches_estimated();
    page.estimated = page.estimated || rest.get_matches_lower_bound() != rest.get_matches_upper_bound();
    // The percentages of one search of both: rated by the factor of the set whose best result
    // weighs the most.
    if (first.empty() && with_value > 0) {
        enquire.set_query(with_value_only);
        enquire.set_sort_by_relevance();
        first = enquire.get_mset(0, 1);
    }
    const Xapian::MSet &best = first.get_max_attained() >= rest.get_max_attained() ? first : rest;
    const std::optional<double> factor = percent_factor(best, parts);
    if (!factor) return std::nullopt;
    const auto add = [&](const Xapian::MSet &mset, Xapian::doccount count) {
        Xapian::doccount added = 0;
        for (auto it = mset.begin(); it != mset.end() && added < count; ++it, ++added) {
            page.documents.push_back(it.get_document());
            page.percents.push_back(rated_percent(it.get_weight(), *factor));
        }
    };
    if (request.offset < with_value) add(first, request.limit);
    add(rest, left);
    return page;
}

bool run_bounded(cx_database &database, const cx_search_request &request, Xapian::Enquire &enquire,
                 const Xapian::MSet *counted, Xapian::MSet &mset, Xapian::doccount &matches) {
    if (!keeps_fields(database, request) || request.limit == 0) return false;
    if (request.sort_key_count == 0 || request.sort_keys[0].slot == CX_SLOT_RELEVANCE) return false;
    const Xapian::Query query = enquire.get_query();
    Xapian::MSet own_count;
    if (counted == nullptr) {
        Xapian::Enquire counting(database.reader);
        set_counting_query(counting, database.reader, query);
        own_count = counting.get_mset(0, 0, 1000 + request.offset + request.limit);
        counted = &own_count;
    }
    const std::optional<PageBound> bound = page_bound(database, request, counted->get_matches_estimated());
    if (!bound) return false;
    set_matchable_query(enquire, database.reader, Xapian::Query(Xapian::Query::OP_FILTER, query, bound->filter));
    // Sorted by a value, the match checks every item that passes: their count is exact.
    mset = enquire.get_mset(request.offset, request.limit, request.offset + request.limit);
    if (mset.size() < request.limit) {
        enquire.set_query(query);
        return false;
    }
    // Counting stopped a thousand past the page (or counted every match, for facets): the matches
    // that passed, scaled by the share of the items the filter keeps, within what counting knows
    // for certain.
    const double scaled = mset.get_matches_estimated() / bound->kept;
    matches = std::clamp(Xapian::doccount(std::min(scaled, 4e9)), counted->get_matches_lower_bound(),
                         counted->get_matches_upper_bound());
    return true;
}

}  // namespace cx

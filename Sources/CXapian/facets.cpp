// Counting over every match of a search: a count per text, every number (`cx_facet_request`).

#include "facets.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "columns.hpp"
#include "database.hpp"

namespace cx {

/// Collects the id of every match, in the order the match meets them: the counts then read each
/// counted slot's value stream once, in id order, which costs less than `Document::get_value` in a
/// spy a match, and a text's counts need no ordered map (Benchmarks/xapian-attribute-ceiling.cpp:
/// a category and a price over 18,858 matches in about three quarters of the time). Only on one
/// database: a shard server knows Xapian's own spies alone.
class Facets::MatchIds : public Xapian::MatchSpy {
  public:
    void operator()(const Xapian::Document &document, double) override { ids.push_back(document.get_docid()); }

    std::string get_description() const override { return "MatchIds"; }

    std::vector<Xapian::docid> ids;
};

Facets::Facets(const Xapian::Database &database, Xapian::Enquire &enquire, const cx_facet_request *requests,
               size_t count, bool sharded, cx_database *keeping)
    : database(database), requests(requests, requests + count), keeping(keeping) {
    if (count == 0) return;
    if (!sharded) {
        matches = std::make_unique<MatchIds>();
        enquire.add_matchspy(matches.get());
        return;
    }
    for (const cx_facet_request &request : this->requests) {
        counted.push_back(std::make_unique<Xapian::ValueCountMatchSpy>(request.slot));
        enquire.add_matchspy(counted.back().get());
    }
}

Facets::~Facets() = default;

namespace {

/// Calls `body` with the value `slot` holds for each of `ids` (ascending) that holds one.
template <typename Body>
void read_values(const Xapian::Database &database, Xapian::valueno slot, const std::vector<Xapian::docid> &ids,
                 Body body) {
    Xapian::ValueIterator value = database.valuestream_begin(slot);
    const Xapian::ValueIterator end = database.valuestream_end(slot);
    for (const Xapian::docid id : ids) {
        if (value == end) return;
        value.skip_to(id);
        if (value != end && value.get_docid() == id) body(*value);
    }
}

/// Reads the counts of one request from the value stream of its slot.
FacetCounts read_counts(const Xapian::Database &database, const cx_facet_request &request,
                        const std::vector<Xapian::docid> &ids) {
    FacetCounts counts;
    if (request.kind == CX_VALUE_NUMBER) {
        read_values(database, request.slot, ids,
                    [&](const std::string &value) { counts.numbers.push_back(Xapian::sortable_unserialise(value)); });
        return counts;
    }
    std::unordered_map<std::string, uint64_t> texts;
    read_values(database, request.slot, ids, [&](const std::string &value) { ++texts[value]; });
    counts.values.reserve(texts.size());
    for (auto &[text, count] : texts) counts.values.push_back({text, 0, count});
    return counts;
}

/// Counts `ids` (ascending) from `column`, as `read_counts` does from the value stream.
FacetCounts column_counts(const Column &column, const std::vector<Xapian::docid> &ids) {
    FacetCounts counts;
    if (column.codes.empty()) {
        counts.numbers.reserve(ids.size());
        for (const Xapian::docid id : ids)
            if (const double number = column.numbers[id]; !std::isnan(number)) counts.numbers.push_back(number);
        return counts;
    }
    std::vector<uint64_t> texts(column.texts.size() + 1);
    for (const Xapian::docid id : ids) ++texts[column.codes[id]];
    for (size_t code = 1; code < texts.size(); ++code)
        if (texts[code] > 0) counts.values.push_back({column.texts[code - 1], 0, texts[code]});
    return counts;
}

/// Reads the counts a `ValueCountMatchSpy` made.
FacetCounts spied_counts(const Xapian::ValueCountMatchSpy &spy, const cx_facet_request &request) {
    FacetCounts counts;
    for (auto value = spy.values_begin(); value != spy.values_end(); ++value) {
        FacetCounts::Value counted;
        if (request.kind == CX_VALUE_NUMBER)
            counted.number = Xapian::sortable_unserialise(*value);
        else
            counted.text = *value;
        counted.count = value.get_termfreq();
        counts.values.push_back(std::move(counted));
    }
    return counts;
}

}  // namespace

std::vector<FacetCounts> Facets::collect() {
    std::vector<FacetCounts> all;
    all.reserve(requests.size());
    if (matches) {
        std::vector<Xapian::docid> &ids = matches->ids;
        if (!std::is_sorted(ids.begin(), ids.end())) std::sort(ids.begin(), ids.end());
        for (const cx_facet_request &request : requests) {
            const bool number = request.kind == CX_VALUE_NUMBER;
            const std::shared_ptr<const Column> kept = keeping ? column(*keeping, request.slot, number) : nullptr;
            all.push_back(kept ? column_counts(*kept, ids) : read_counts(database, request, ids));
        }
        return all;
    }
    for (size_t i = 0; i < counted.size(); ++i) all.push_back(spied_counts(*counted[i], requests[i]));
    return all;
}

}  // namespace cx

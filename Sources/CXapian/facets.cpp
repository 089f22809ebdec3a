// Counting over every match of a search: a count per text, every number (`cx_facet_request`).

#include "internal.hpp"

namespace cx {

namespace {

/// Collects the number each match holds in a slot, unserialised: no map of distinct values to
/// build, which for prices or dates is as large as the matches themselves. Only on one database:
/// a shard server knows Xapian's own spies alone.
class NumberSpy : public Xapian::MatchSpy {
  public:
    explicit NumberSpy(Xapian::valueno slot) : slot(slot) {}

    void operator()(const Xapian::Document &document, double) override {
        const std::string value = document.get_value(slot);
        if (!value.empty()) numbers.push_back(Xapian::sortable_unserialise(value));
    }

    std::string get_description() const override { return "NumberSpy(" + std::to_string(slot) + ")"; }

    Xapian::valueno slot;
    std::vector<double> numbers;
};

}  // namespace

struct Facets::Spy {
    std::unique_ptr<Xapian::ValueCountMatchSpy> counted;
    std::unique_ptr<NumberSpy> collected;
    bool number = false;
};

Facets::Facets(Xapian::Enquire &enquire, const cx_facet_request *requests, size_t count, bool sharded) {
    for (size_t i = 0; i < count; ++i) {
        auto spy = std::make_unique<Spy>();
        spy->number = requests[i].kind == CX_VALUE_NUMBER;
        if (spy->number && !sharded) {
            spy->collected = std::make_unique<NumberSpy>(requests[i].slot);
            enquire.add_matchspy(spy->collected.get());
        } else {
            spy->counted = std::make_unique<Xapian::ValueCountMatchSpy>(requests[i].slot);
            enquire.add_matchspy(spy->counted.get());
        }
        spies.push_back(std::move(spy));
    }
}

Facets::~Facets() = default;

std::vector<FacetCounts> Facets::collect() const {
    std::vector<FacetCounts> all(spies.size());
    for (size_t i = 0; i < spies.size(); ++i) {
        const Spy &spy = *spies[i];
        if (spy.collected) {
            all[i].numbers = spy.collected->numbers;
            continue;
        }
        for (auto value = spy.counted->values_begin(); value != spy.counted->values_end(); ++value) {
            FacetCounts::Value counted;
            if (spy.number)
                counted.number = Xapian::sortable_unserialise(*value);
            else
                counted.text = *value;
            counted.count = value.get_termfreq();
            all[i].values.push_back(std::move(counted));
        }
    }
    return all;
}

}  // namespace cx

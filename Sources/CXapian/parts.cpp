// Searches split by document id: one part per core, each matching its own range of the index.
//
// Xapian 1.4 matches on one thread, and a common word's query reads its whole posting list: at
// 1,000,000 items the commonest words' lists alone take 8–12 ms to read. A read-only handle can
// split that work: each part runs the whole query on its own handle of the same revision, limited
// to a range of document ids, so every part scores its items with the statistics of the whole
// index, exactly as one search would; the best of each part are merged (search.cpp).

#include <sched.h>

#include <algorithm>
#include <atomic>

#include "internal.hpp"

namespace cx {

namespace {

/// The cores this process may run on.
unsigned available_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
    return 1;
}

/// The document ids from `first` to `last`, as a posting list without weights. It reports the
/// whole index as its size, so that the matcher never leads a query by it (which would cost a
/// step of its own for each candidate): it only checks whether a candidate lies in the range, and
/// the first candidate past `last` ends the part.
class DocumentRangeSource final : public Xapian::PostingSource {
  public:
    DocumentRangeSource(Xapian::docid first, Xapian::docid last, Xapian::doccount size)
        : first_(first), last_(last), size_(size) {}

    Xapian::doccount get_termfreq_min() const override { return 0; }
    Xapian::doccount get_termfreq_est() const override { return size_; }
    Xapian::doccount get_termfreq_max() const override { return size_; }

    void init(const Xapian::Database &) override {
        current_ = 0;
        ended_ = false;
    }

    void next(double) override { move_to(current_ == 0 ? first_ : current_ + 1); }

    void skip_to(Xapian::docid did, double) override {
        if (!ended_ && did > current_) move_to(did);
    }

    bool check(Xapian::docid did, double) override {
        move_to(did);
        return true;
    }

    bool at_end() const override { return ended_; }
    Xapian::docid get_docid() const override { return current_; }
    Xapian::PostingSource *clone() const override { return new DocumentRangeSource(first_, last_, size_); }
    std::string name() const override { return "searchlight.DocumentRange"; }

  private:
    Xapian::docid first_, last_;
    Xapian::doccount size_;
    Xapian::docid current_ = 0;
    bool ended_ = false;

    void move_to(Xapian::docid did) {
        current_ = std::max(did, first_);
        ended_ = current_ > last_;
    }
};

/// The cores that searches of this process hold now.
std::atomic<unsigned> held_cores{0};

/// How many parts a search of `query` is worth: one per `per_part` postings its terms hold.
uint64_t worth_parts(const Xapian::Database &reader, const Xapian::Query &query, uint64_t per_part) {
    uint64_t postings = 0;
    for (auto it = query.get_unique_terms_begin(); it != query.get_unique_terms_end(); ++it) {
        postings += reader.get_termfreq(*it);
    }
    return postings / std::max<uint64_t>(1, per_part);
}

}  // namespace

CoreLease::CoreLease(const cx_database &database, const cx_search_tuning &tuning, const Xapian::Query &query) {
    static const unsigned cores = available_cores();
    const unsigned most = tuning.most_parts != 0 ? tuning.most_parts : std::min(cores, cx::most_parts);
    const unsigned least = tuning.most_parts != 0 ? 2 : fewest_parts;
    unsigned wanted = 1;
    if (most >= least && !database.writable && !database.sharded) {
        const uint64_t per_part =
            tuning.postings_per_part != 0 ? tuning.postings_per_part : default_postings_per_part;
        wanted = static_cast<unsigned>(std::clamp<uint64_t>(worth_parts(database.reader, query, per_part), 1, most));
    }
    unsigned held = held_cores.load(std::memory_order_relaxed);
    unsigned taken;
    do {
        const unsigned free = held < cores ? cores - held : 0;
        taken = tuning.most_parts != 0 ? wanted : std::min(wanted, free);
        if (tuning.most_parts == 0 && taken < fewest_parts) taken = 1;
    } while (!held_cores.compare_exchange_weak(held, held + taken, std::memory_order_relaxed));
    parts_ = held_ = taken;
}

CoreLease::~CoreLease() { held_cores.fetch_sub(held_, std::memory_order_relaxed); }

bool ready_helpers(cx_database &database, size_t count) {
    try {
        const Xapian::rev revision = database.reader.get_revision();
        const std::string uuid = database.reader.get_uuid();
        while (database.helpers.size() < count) database.helpers.emplace_back(database.path);
        for (size_t i = 0; i < count; ++i) {
            Xapian::Database &helper = database.helpers[i];
            if (helper.get_revision() != revision) helper.reopen();
            if (helper.get_revision() != revision || helper.get_uuid() != uuid) return false;
        }
        return true;
    } catch (const Xapian::Error &) {
        // The reader keeps what it has open; the helpers are opened again next time.
        database.helpers.clear();
        return false;
    }
}

Xapian::Query document_range(const Xapian::Database &database, Xapian::docid first, Xapian::docid last) {
    return Xapian::Query((new DocumentRangeSource(first, last, database.get_doccount()))->release());
}

}  // namespace cx

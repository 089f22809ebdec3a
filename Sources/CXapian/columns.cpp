// Attributes kept in memory for counting (`cx::column`) and sorting (`cx::ranks`), one set per
// database and revision.

#include "columns.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <unordered_map>

#include "database.hpp"
#include "read.hpp"
#include "schema.hpp"
#include "typos.hpp"

namespace cx {

/// What a revision keeps of one kind, built once: by the first reader that asks for it, while the
/// readers of the same revision that ask for it meanwhile wait for that one, and no other reader
/// waits at all.
template <typename T> using Once = std::shared_future<std::shared_ptr<const T>>;

/// The items that can expire, ordered by expiration (`times` ascending).
struct Expirations {
    std::vector<double> times;
    std::vector<Xapian::docid> items;
};

/// The columns and ranks kept of one revision of one database. Its members are read and changed
/// with `kept_lock` held; what a `Once` holds is built without it.
struct KeptFields {
    size_t bytes = 0;
    std::unordered_map<Xapian::valueno, Once<Column>> columns;
    std::unordered_map<Xapian::valueno, Once<Ranks>> ranks;
    Once<Vectors> vectors;
    uint32_t vector_dimensions = 0;
    Once<Lengths> lengths;
    Once<Expirations> expirations;
    /// The expired items, ascending, when the first `expired_count` of the expirations' items have expired.
    std::shared_ptr<const std::vector<Xapian::docid>> expired;
    size_t expired_count = 0;
    /// How many searches at the revision have asked for the lengths, or the expirations, while they
    /// were not kept.
    unsigned length_asks = 0, expiration_asks = 0;
    Once<NearWords> text_words;
};

namespace {

/// Reads every value of `slot` into a column: `number` values as doubles, texts as codes.
std::shared_ptr<Column> read_column(const Xapian::Database &reader, Xapian::valueno slot, bool number) {
    auto column = std::make_shared<Column>();
    const size_t size = size_t(reader.get_lastdocid()) + 1;
    if (number) {
        column->numbers.assign(size, NAN);
        for (auto value = reader.valuestream_begin(slot); value != reader.valuestream_end(slot); ++value)
            column->numbers[value.get_docid()] = Xapian::sortable_unserialise(*value);
        return column;
    }
    column->codes.assign(size, 0);
    std::unordered_map<std::string, uint32_t> codes;
    for (auto value = reader.valuestream_begin(slot); value != reader.valuestream_end(slot); ++value) {
        const auto [code, added] = codes.try_emplace(*value, uint32_t(column->texts.size() + 1));
        if (added) column->texts.push_back(*value);
        column->codes[value.get_docid()] = code->second;
    }
    return column;
}

/// Reads every vector of meaning of `dimensions` into `Vectors`.
std::shared_ptr<Vectors> read_vectors(const Xapian::Database &reader, uint32_t dimensions) {
    auto vectors = std::make_shared<Vectors>();
    const size_t size = size_t(reader.get_lastdocid()) + 1;
    vectors->dimensions = dimensions;
    vectors->scales.assign(size, 0);
    vectors->components.assign(size * dimensions, 0);
    for (auto value = reader.valuestream_begin(CX_SLOT_MEANING); value != reader.valuestream_end(CX_SLOT_MEANING);
         ++value) {
        const std::string &stored = *value;
        if (stored.size() != sizeof(float) + dimensions) continue;
        const Xapian::docid id = value.get_docid();
        std::memcpy(&vectors->scales[id], stored.data(), sizeof(float));
        std::memcpy(vectors->components.data() + size_t(id) * dimensions, stored.data() + sizeof(float), dimensions);
        if (vectors->scales[id] != 0) ++vectors->count;
    }
    return vectors;
}

/// Reads every item's length into `Lengths`.
std::shared_ptr<Lengths> read_lengths(const Xapian::Database &reader) {
    auto lengths = std::make_shared<Lengths>();
    lengths->of.assign(size_t(reader.get_lastdocid()) + 1, 0);
    for (auto item = reader.postlist_begin(""); item != reader.postlist_end(""); ++item)
        lengths->of[*item] = item.get_doclength();
    return lengths;
}

/// How many ranks `Ranks` keeps past the first: enough to tell apart the top 0.025 % of the items.
constexpr size_t rank_points = 4096;

/// Reads every value of number slot `slot` and keeps `rank_points + 1` of them at even ranks.
std::shared_ptr<Ranks> read_ranks(const Xapian::Database &reader, Xapian::valueno slot) {
    std::vector<double> numbers;
    numbers.reserve(reader.get_value_freq(slot));
    for (auto value = reader.valuestream_begin(slot); value != reader.valuestream_end(slot); ++value)
        numbers.push_back(Xapian::sortable_unserialise(*value));
    if (numbers.empty()) return nullptr;
    std::sort(numbers.begin(), numbers.end());
    auto ranks = std::make_shared<Ranks>();
    ranks->items = Xapian::doccount(numbers.size());
    for (size_t point = 0; point <= rank_points; ++point)
        ranks->points.push_back(Xapian::sortable_serialise(numbers[point * (numbers.size() - 1) / rank_points]));
    return ranks;
}

/// `column_range`'s posting source: the passing document ids, walked in order from the column.
class ColumnRange final : public Xapian::PostingSource {
  public:
    ColumnRange(std::shared_ptr<const Column> column, double low, double high)
        : column(std::move(column)), low(low), high(high) {}

    void init(const Xapian::Database &) override {
        const std::vector<double> &numbers = column->numbers;
        passing = Xapian::doccount(std::count_if(numbers.begin(), numbers.end(), [&](double x) { return passes(x); }));
        current = 0;
        set_maxweight(0);
    }

    Xapian::doccount get_termfreq_min() const override { return passing; }
    Xapian::doccount get_termfreq_est() const override { return passing; }
    Xapian::doccount get_termfreq_max() const override { return passing; }

    void next(double) override {
        const std::vector<double> &numbers = column->numbers;
        do ++current;
        while (current < numbers.size() && !passes(numbers[current]));
    }

    void skip_to(Xapian::docid id, double min_weight) override {
        if (id <= current) return;
        current = id - 1;
        next(min_weight);
    }

    bool check(Xapian::docid id, double min_weight) override {
        if (id <= current) return true;
        // Left on `id` when it fails: `next` moves on past it.
        current = id;
        return current < column->numbers.size() && passes(column->numbers[current]);
    }

    bool at_end() const override { return current >= column->numbers.size(); }
    Xapian::docid get_docid() const override { return Xapian::docid(current); }
    Xapian::PostingSource *clone() const override { return new ColumnRange(column, low, high); }
    std::string name() const override { return "searchlight.ColumnRange"; }

  private:
    /// NaN, an item without the number, passes neither comparison.
    bool passes(double number) const { return number >= low && number <= high; }

    std::shared_ptr<const Column> column;
    double low, high;
    Xapian::doccount passing = 0;
    size_t current = 0;
};

/// Every revision's kept fields that a handle still reads, by the database's UUID and the revision.
/// The lock guards the map and each entry's members, never the reading of a column, a revision's
/// lengths or vectors (`built_once`): a reader waits only for what it needs of its own revision.
std::mutex kept_lock;
std::map<std::pair<std::string, Xapian::rev>, std::weak_ptr<KeptFields>> kept;

/// The kept fields of the revision `snapshot` is of, which `reader` reads, with `kept_lock` held:
/// the snapshot's, or those another handle of the same revision keeps, or new ones. Null for a
/// database without a UUID.
std::shared_ptr<KeptFields> kept_of(const Xapian::Database &reader, Snapshot &snapshot) {
    if (snapshot.fields) return snapshot.fields;
    const std::string uuid = reader.get_uuid();
    if (uuid.empty()) return nullptr;
    for (auto entry = kept.begin(); entry != kept.end();) entry = entry->second.expired() ? kept.erase(entry) : ++entry;
    std::weak_ptr<KeptFields> &slot = kept[{uuid, snapshot.revision}];
    snapshot.fields = slot.lock();
    if (!snapshot.fields) {
        snapshot.fields = std::make_shared<KeptFields>();
        slot = snapshot.fields;
    }
    return snapshot.fields;
}

std::shared_ptr<KeptFields> kept_of(cx_database &database) { return kept_of(database.reader, *cx::snapshot(database)); }

/// What `slot` holds, built by `build` if no reader has begun to: `lock`, held on entry and on
/// return, is let go while `build` runs, or while another reader's build is waited for. A build
/// that fails leaves `slot` empty for the next reader to try again, and fails the readers waiting
/// for it alike.
template <typename T, typename Build>
std::shared_ptr<const T> built_once(std::unique_lock<std::mutex> &lock, Once<T> &slot, Build build) {
    if (slot.valid()) {
        const Once<T> pending = slot;
        lock.unlock();
        std::shared_ptr<const T> value;
        try {
            value = pending.get();
        } catch (...) {
            lock.lock();
            throw;
        }
        lock.lock();
        return value;
    }
    std::promise<std::shared_ptr<const T>> promise;
    slot = promise.get_future().share();
    lock.unlock();
    std::shared_ptr<const T> value;
    try {
        value = build();
    } catch (...) {
        lock.lock();
        slot = Once<T>();
        promise.set_exception(std::current_exception());
        throw;
    }
    promise.set_value(value);
    lock.lock();
    return value;
}

}  // namespace

std::shared_ptr<const Column> column(cx_database &database, Xapian::valueno slot, bool number) {
    const Xapian::Database &reader = database.reader;
    const size_t bytes = (size_t(reader.get_lastdocid()) + 1) * (number ? sizeof(double) : sizeof(uint32_t));
    std::unique_lock<std::mutex> lock(kept_lock);
    const std::shared_ptr<KeptFields> entry = kept_of(database);
    if (entry == nullptr) return nullptr;
    const auto found = entry->columns.find(slot);
    if (found == entry->columns.end()) {
        if (entry->bytes + bytes > most_column_bytes) return nullptr;
        entry->bytes += bytes;
    }
    // A node of the map stays where it is when others are added.
    Once<Column> &kept_column = found == entry->columns.end() ? entry->columns[slot] : found->second;
    std::shared_ptr<const Column> built = built_once(lock, kept_column, [&] {
        return std::shared_ptr<const Column>(read_column(reader, slot, number));
    });
    if (found == entry->columns.end())
        for (const std::string &text : built->texts) entry->bytes += text.size();
    return built;
}

std::shared_ptr<const Column> column_or_read(cx_database &database, const cx_search_request &request,
                                             Xapian::valueno slot, bool number) {
    if (keeps_fields(database, request))
        if (std::shared_ptr<const Column> kept_column = column(database, slot, number)) return kept_column;
    return read_column(database.reader, slot, number);
}

std::shared_ptr<const Vectors> vectors(cx_database &database, uint32_t dimensions) {
    const Xapian::Database &reader = database.reader;
    const size_t bytes = (size_t(reader.get_lastdocid()) + 1) * (sizeof(float) + dimensions);
    std::unique_lock<std::mutex> lock(kept_lock);
    const std::shared_ptr<KeptFields> entry = kept_of(database);
    if (entry == nullptr) return nullptr;
    if (!entry->vectors.valid()) {
        if (entry->bytes + bytes > most_column_bytes) return nullptr;
        entry->bytes += bytes;
        entry->vector_dimensions = dimensions;
    } else if (entry->vector_dimensions != dimensions) {
        return nullptr;
    }
    return built_once(lock, entry->vectors, [&] {
        return std::shared_ptr<const Vectors>(read_vectors(reader, dimensions));
    });
}

std::shared_ptr<const Lengths> lengths(cx_database &database) {
    const Xapian::Database &reader = database.reader;
    const size_t bytes = (size_t(reader.get_lastdocid()) + 1) * sizeof(Xapian::termcount);
    std::unique_lock<std::mutex> lock(kept_lock);
    const std::shared_ptr<KeptFields> entry = kept_of(database);
    if (entry == nullptr) return nullptr;
    if (!entry->lengths.valid()) {
        if (++entry->length_asks < searches_before_keeping || entry->bytes + bytes > most_column_bytes) return nullptr;
        entry->bytes += bytes;
    }
    return built_once(lock, entry->lengths, [&] { return std::shared_ptr<const Lengths>(read_lengths(reader)); });
}

std::shared_ptr<const std::vector<Xapian::docid>> expired_items(cx_database &database, int64_t now_ms) {
    const Xapian::Database &reader = database.reader;
    std::unique_lock<std::mutex> lock(kept_lock);
    const std::shared_ptr<KeptFields> entry = kept_of(database);
    if (entry == nullptr) return nullptr;
    if (!entry->expirations.valid()) {
        const Xapian::doccount expiring = reader.get_value_freq(slot::expiration);
        const size_t bytes = size_t(expiring) * (sizeof(double) + sizeof(Xapian::docid));
        if (++entry->expiration_asks < searches_before_keeping || entry->bytes + bytes > most_column_bytes)
            return nullptr;
        entry->bytes += bytes;
    }
    const std::shared_ptr<const Expirations> expirations = built_once(lock, entry->expirations, [&] {
        std::vector<std::pair<double, Xapian::docid>> by_time;
        by_time.reserve(reader.get_value_freq(slot::expiration));
        for (auto value = reader.valuestream_begin(slot::expiration); value != reader.valuestream_end(slot::expiration);
             ++value)
            by_time.emplace_back(Xapian::sortable_unserialise(*value), value.get_docid());
        std::sort(by_time.begin(), by_time.end());
        auto read = std::make_shared<Expirations>();
        for (const auto &[time, item] : by_time) {
            read->times.push_back(time);
            read->items.push_back(item);
        }
        return std::shared_ptr<const Expirations>(std::move(read));
    });
    // The items whose expiration is at or before `now_ms`: what `OP_VALUE_LE` on the serialised
    // times leaves out, since `sortable_serialise` keeps the order of the numbers.
    const std::vector<double> &times = expirations->times;
    const size_t count = size_t(std::upper_bound(times.begin(), times.end(), double(now_ms)) - times.begin());
    if (!entry->expired || entry->expired_count != count) {
        std::vector<Xapian::docid> expired(expirations->items.begin(), expirations->items.begin() + long(count));
        std::sort(expired.begin(), expired.end());
        entry->expired = std::make_shared<const std::vector<Xapian::docid>>(std::move(expired));
        entry->expired_count = count;
    }
    return entry->expired;
}

Xapian::Query column_range(std::shared_ptr<const Column> column, double low, double high) {
    return Xapian::Query((new ColumnRange(std::move(column), low, high))->release());
}

namespace {

/// The words of the items' text last kept of each database (by its UUID), with their revision.
std::map<std::string, std::pair<Xapian::rev, std::shared_ptr<const NearWords>>> latest_words;

/// The words of the items' text each commit of this process's writers wrote, by the database and
/// the revision the commit made.
std::map<std::pair<std::string, Xapian::rev>, std::vector<std::string>> written_words;

/// The most commits whose words are kept (`record_written_words`).
constexpr size_t most_written_records = 4096;

/// A revision's words are read from the index again once the words written since the last read
/// pass this share of those (one in 16).
constexpr size_t most_written_share = 16;

/// The words of revision `revision` of database `uuid` as those last kept of it and the words
/// its commits since wrote, when every one of those commits is recorded and they wrote few
/// words; null otherwise. Takes `kept_lock`.
std::shared_ptr<const NearWords> derived_text_words(const std::string &uuid, Xapian::rev revision) {
    std::shared_ptr<const NearWords> latest;
    std::vector<std::string> since;
    {
        std::lock_guard<std::mutex> guard(kept_lock);
        const auto found = latest_words.find(uuid);
        if (found == latest_words.end() || found->second.first >= revision ||
            revision - found->second.first > most_written_records)
            return nullptr;
        for (Xapian::rev commit = found->second.first + 1; commit <= revision; ++commit) {
            const auto written = written_words.find({uuid, commit});
            if (written == written_words.end()) return nullptr;
            since.insert(since.end(), written->second.begin(), written->second.end());
        }
        latest = found->second.second;
    }
    const std::shared_ptr<const NearWords> &base = latest->base() ? latest->base() : latest;
    if ((latest->base() ? latest->added() : 0) + since.size() > base->size() / most_written_share) return nullptr;
    auto derived = std::make_shared<NearWords>(base);
    if (latest->base()) latest->each_added([&](const std::string &word, Xapian::doccount) { derived->add(word, 0); });
    std::sort(since.begin(), since.end());
    since.erase(std::unique(since.begin(), since.end()), since.end());
    for (const std::string &word : since) derived->add(word, 0);
    return derived;
}

}  // namespace

std::shared_ptr<const NearWords> kept_text_words(const cx_database &database, Snapshot &snapshot) {
    const Xapian::Database &reader = database.reader;
    if (database.writable || database.sharded) return read_text_words(reader);
    std::unique_lock<std::mutex> lock(kept_lock);
    const std::shared_ptr<KeptFields> entry = kept_of(reader, snapshot);
    if (entry == nullptr) {
        lock.unlock();
        return read_text_words(reader);
    }
    const std::string uuid = reader.get_uuid();
    const Xapian::rev revision = snapshot.revision;
    return built_once(lock, entry->text_words, [&] {
        std::shared_ptr<const NearWords> words = derived_text_words(uuid, revision);
        if (!words) words = read_text_words(reader);
        std::lock_guard<std::mutex> guard(kept_lock);
        auto &latest = latest_words[uuid];
        if (!latest.second || latest.first < revision) latest = {revision, words};
        for (auto it = written_words.lower_bound({uuid, 0}); it != written_words.end() && it->first.first == uuid &&
                                                              it->first.second <= latest.first;)
            it = written_words.erase(it);
        return words;
    });
}

void record_written_words(const std::string &uuid, Xapian::rev revision, std::vector<std::string> words) {
    if (uuid.empty()) return;
    std::lock_guard<std::mutex> guard(kept_lock);
    if (written_words.size() >= most_written_records) written_words.erase(written_words.begin());
    written_words[{uuid, revision}] = std::move(words);
}

std::shared_ptr<const Ranks> ranks(cx_database &database, Xapian::valueno slot) {
    std::unique_lock<std::mutex> lock(kept_lock);
    const std::shared_ptr<KeptFields> entry = kept_of(database);
    if (entry == nullptr) return nullptr;
    return built_once(lock, entry->ranks[slot], [&] {
        return std::shared_ptr<const Ranks>(read_ranks(database.reader, slot));
    });
}

}  // namespace cx

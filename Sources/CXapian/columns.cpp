// Attributes kept in memory for counting (`cx::column`) and sorting (`cx::ranks`), one set per
// database and revision.

#include "columns.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "database.hpp"
#include "meaning.hpp"
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
    Once<MeaningCodes> codes;
    uint32_t code_dimensions = 0;
    Once<Lengths> lengths;
    Once<Expirations> expirations;
    /// The expired items, ascending, when the first `expired_count` of the expirations' items have expired.
    std::shared_ptr<const std::vector<Xapian::docid>> expired;
    size_t expired_count = 0;
    /// How many searches at the revision have asked for the lengths, or the expirations, while they
    /// were not kept.
    unsigned length_asks = 0, expiration_asks = 0;
    Once<NearWords> text_words;
    Once<NearWords> spelling_words;
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

/// A block of `words` words a code for `MeaningCodes::block_items` items, none with a vector.
std::shared_ptr<MeaningCodes::Block> empty_block(uint32_t words) {
    auto block = std::make_shared<MeaningCodes::Block>();
    block->bits.assign(size_t(MeaningCodes::block_items) * words, 0);
    block->weights.assign(MeaningCodes::block_items, 0);
    return block;
}

/// Reads every vector of meaning of `dimensions` into `MeaningCodes`.
std::shared_ptr<MeaningCodes> read_codes(const Xapian::Database &reader, uint32_t dimensions) {
    auto codes = std::make_shared<MeaningCodes>();
    codes->dimensions = dimensions;
    codes->words = code_words(dimensions);
    const size_t blocks = size_t(reader.get_lastdocid()) / MeaningCodes::block_items + 1;
    std::vector<std::shared_ptr<MeaningCodes::Block>> building;
    std::vector<double> residual(dimensions, 0);
    for (size_t b = 0; b < blocks; ++b) building.push_back(empty_block(codes->words));
    for (auto value = reader.valuestream_begin(CX_SLOT_MEANING); value != reader.valuestream_end(CX_SLOT_MEANING);
         ++value) {
        const Xapian::docid id = value.get_docid();
        MeaningCodes::Block &block = *building[id / MeaningCodes::block_items];
        const size_t at = id % MeaningCodes::block_items;
        block.weights[at] =
            meaning_code(*value, dimensions, block.bits.data() + at, MeaningCodes::block_items, residual.data());
        if (block.weights[at] != 0) ++codes->count;
    }
    for (double sum : residual) codes->residual.push_back(codes->count > 0 ? float(sum / codes->count) : 0);
    codes->blocks.assign(building.begin(), building.end());
    return codes;
}

/// Reads every item's length into `Lengths`.
std::shared_ptr<Lengths> read_lengths(const Xapian::Database &reader) {
    auto lengths = std::make_shared<Lengths>();
    lengths->of.assign(size_t(reader.get_lastdocid()) + 1, 0);
    for (auto item = reader.postlist_begin(""); item != reader.postlist_end(""); ++item)
        lengths->of[*item] = item.get_doclength();
    return lengths;
}

/// Reads every item's expiration into `Expirations`.
std::shared_ptr<const Expirations> read_expirations(const Xapian::Database &reader) {
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
    return read;
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

Xapian::Query column_range(std::shared_ptr<const Column> column, double low, double high) {
    return Xapian::Query((new ColumnRange(std::move(column), low, high))->release());
}

namespace {

/// The words of the items' text last kept of each database (by its UUID), with their revision.
std::map<std::string, std::pair<Xapian::rev, std::shared_ptr<const NearWords>>> latest_words;

/// The codes of vectors of meaning last kept of each database (by its UUID), with their revision.
std::map<std::string, std::pair<Xapian::rev, std::shared_ptr<const MeaningCodes>>> latest_codes;

/// The lengths, and the expirations, last kept of each database (by its UUID), with their revision.
std::map<std::string, std::pair<Xapian::rev, std::shared_ptr<const Lengths>>> latest_lengths;
std::map<std::string, std::pair<Xapian::rev, std::shared_ptr<const Expirations>>> latest_expirations;

/// What each commit of this process's writers wrote, by the database and the revision the commit
/// made.
std::map<std::pair<std::string, Xapian::rev>, Written> written;

/// The most commits whose writes are kept (`record_written`).
constexpr size_t most_written_records = 4096;

/// A revision's words, or codes, are read from the index again once the words, or items, written
/// since the last read pass this share of those (one in 16).
constexpr size_t most_written_share = 16;

/// Gathers into `out` what the commits of database `uuid` after revision `from`, up to `to`, wrote
/// (each record's `part`), with `kept_lock` held: false when one of them is not recorded.
template <typename T>
bool written_since(const std::string &uuid, Xapian::rev from, Xapian::rev to, std::vector<T> Written::*part,
                   std::vector<T> &out) {
    if (from >= to || to - from > most_written_records) return false;
    for (Xapian::rev commit = from + 1; commit <= to; ++commit) {
        const auto record = written.find({uuid, commit});
        if (record == written.end()) return false;
        const std::vector<T> &wrote = record->second.*part;
        out.insert(out.end(), wrote.begin(), wrote.end());
    }
    return true;
}

/// The words of revision `revision` of database `uuid` as those last kept of it and the words
/// its commits since wrote, when every one of those commits is recorded and they wrote few
/// words; null otherwise. Takes `kept_lock`.
std::shared_ptr<const NearWords> derived_text_words(const std::string &uuid, Xapian::rev revision) {
    std::shared_ptr<const NearWords> latest;
    std::vector<std::string> since;
    {
        std::lock_guard<std::mutex> guard(kept_lock);
        const auto found = latest_words.find(uuid);
        if (found == latest_words.end() || !written_since(uuid, found->second.first, revision, &Written::words, since))
            return nullptr;
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

/// The codes of revision `revision` of database `uuid`, which `reader` reads, as those last kept of
/// it with the items its commits since wrote read again, when every one of those commits is
/// recorded and they wrote few items; null otherwise. Takes `kept_lock`.
std::shared_ptr<const MeaningCodes> derived_codes(const Xapian::Database &reader, const std::string &uuid,
                                                  Xapian::rev revision, uint32_t dimensions) {
    std::shared_ptr<const MeaningCodes> latest;
    std::vector<Xapian::docid> since;
    {
        std::lock_guard<std::mutex> guard(kept_lock);
        const auto found = latest_codes.find(uuid);
        if (found == latest_codes.end() || found->second.second->dimensions != dimensions ||
            !written_since(uuid, found->second.first, revision, &Written::items, since))
            return nullptr;
        latest = found->second.second;
    }
    if (since.size() > std::max<size_t>(latest->count, 1024) / most_written_share) return nullptr;
    std::sort(since.begin(), since.end());
    since.erase(std::unique(since.begin(), since.end()), since.end());
    auto derived = std::make_shared<MeaningCodes>(*latest);
    const size_t blocks = size_t(reader.get_lastdocid()) / MeaningCodes::block_items + 1;
    std::vector<std::shared_ptr<MeaningCodes::Block>> copied(std::max(blocks, derived->blocks.size()));
    for (Xapian::docid id : since) {
        const size_t b = id / MeaningCodes::block_items, at = id % MeaningCodes::block_items;
        if (!copied[b]) {
            copied[b] = b < derived->blocks.size() ? std::make_shared<MeaningCodes::Block>(*derived->blocks[b])
                                                   : empty_block(derived->words);
        }
        MeaningCodes::Block &block = *copied[b];
        if (block.weights[at] != 0) --derived->count;
        std::string value;
        try {
            value = reader.get_document(id).get_value(CX_SLOT_MEANING);
        } catch (const Xapian::DocNotFoundError &) {
            // Deleted: no vector.
        }
        block.weights[at] = meaning_code(value, dimensions, block.bits.data() + at, MeaningCodes::block_items);
        if (block.weights[at] != 0) ++derived->count;
    }
    derived->blocks.resize(copied.size());
    for (size_t b = 0; b < copied.size(); ++b) {
        if (copied[b])
            derived->blocks[b] = std::move(copied[b]);
        else if (!derived->blocks[b])
            derived->blocks[b] = empty_block(derived->words);
    }
    return derived;
}

/// The items the commits of database `uuid` after the revision last kept of it in `latest`, up to
/// `revision`, wrote (ascending, once each), and what was kept then: when every one of those
/// commits is recorded and they wrote at most a sixteenth of `items`; else nothing. With
/// `kept_lock` held.
template <typename T>
std::optional<std::pair<std::shared_ptr<const T>, std::vector<Xapian::docid>>>
derivable(const std::map<std::string, std::pair<Xapian::rev, std::shared_ptr<const T>>> &latest,
          const std::string &uuid, Xapian::rev revision, size_t items) {
    const auto found = latest.find(uuid);
    std::vector<Xapian::docid> since;
    if (found == latest.end() || !written_since(uuid, found->second.first, revision, &Written::items, since) ||
        since.size() > std::max<size_t>(items, 1024) / most_written_share)
        return std::nullopt;
    std::sort(since.begin(), since.end());
    since.erase(std::unique(since.begin(), since.end()), since.end());
    return std::make_pair(found->second.second, std::move(since));
}

/// The lengths of `reader`'s revision as those kept of an earlier one (`kept`) with the items
/// `since` (ascending) read again.
std::shared_ptr<const Lengths> derived_lengths(const Xapian::Database &reader, const Lengths &kept,
                                               const std::vector<Xapian::docid> &since) {
    auto derived = std::make_shared<Lengths>(kept);
    derived->of.resize(size_t(reader.get_lastdocid()) + 1, 0);
    for (Xapian::docid id : since) {
        if (id >= derived->of.size()) continue;
        try {
            derived->of[id] = reader.get_doclength(id);
        } catch (const Xapian::DocNotFoundError &) {
            derived->of[id] = 0;
        }
    }
    return derived;
}

/// The expirations of `reader`'s revision as those kept of an earlier one (`kept`) with the items
/// `since` (ascending) read again: theirs left out, then each one's that can expire put back in
/// its place.
std::shared_ptr<const Expirations> derived_expirations(const Xapian::Database &reader, const Expirations &kept,
                                                       const std::vector<Xapian::docid> &since) {
    std::vector<std::pair<double, Xapian::docid>> added;
    for (Xapian::docid id : since) {
        std::string value;
        try {
            value = reader.get_document(id).get_value(slot::expiration);
        } catch (const Xapian::DocNotFoundError &) {
            // Deleted: it expires no more.
        }
        if (!value.empty()) added.emplace_back(Xapian::sortable_unserialise(value), id);
    }
    std::sort(added.begin(), added.end());
    auto derived = std::make_shared<Expirations>();
    derived->times.reserve(kept.times.size() + added.size());
    derived->items.reserve(kept.items.size() + added.size());
    auto next = added.begin();
    for (size_t i = 0; i < kept.times.size(); ++i) {
        const std::pair<double, Xapian::docid> entry(kept.times[i], kept.items[i]);
        for (; next != added.end() && *next < entry; ++next) {
            derived->times.push_back(next->first);
            derived->items.push_back(next->second);
        }
        if (std::binary_search(since.begin(), since.end(), entry.second)) continue;
        derived->times.push_back(entry.first);
        derived->items.push_back(entry.second);
    }
    for (; next != added.end(); ++next) {
        derived->times.push_back(next->first);
        derived->items.push_back(next->second);
    }
    return derived;
}

/// Forgets what the commits of database `uuid` wrote that no kind kept of it needs any more: those
/// up to the oldest revision last kept of it. With `kept_lock` held.
void forget_written(const std::string &uuid) {
    Xapian::rev oldest = std::numeric_limits<Xapian::rev>::max();
    if (const auto words = latest_words.find(uuid); words != latest_words.end()) oldest = words->second.first;
    if (const auto codes = latest_codes.find(uuid); codes != latest_codes.end())
        oldest = std::min(oldest, codes->second.first);
    if (const auto kept = latest_lengths.find(uuid); kept != latest_lengths.end())
        oldest = std::min(oldest, kept->second.first);
    if (const auto kept = latest_expirations.find(uuid); kept != latest_expirations.end())
        oldest = std::min(oldest, kept->second.first);
    for (auto it = written.lower_bound({uuid, 0}); it != written.end() && it->first.first == uuid &&
                                                    it->first.second <= oldest;)
        it = written.erase(it);
}

/// Records `kept` as what was last kept of database `uuid`, at `revision`, in `latest` (unless a
/// later revision's is there), and forgets the commits no kind kept needs any more. Takes
/// `kept_lock`.
template <typename T>
void keep_latest(std::map<std::string, std::pair<Xapian::rev, std::shared_ptr<const T>>> &latest,
                 const std::string &uuid, Xapian::rev revision, const std::shared_ptr<const T> &kept) {
    std::lock_guard<std::mutex> guard(kept_lock);
    auto &last = latest[uuid];
    if (!last.second || last.first < revision) last = {revision, kept};
    forget_written(uuid);
}

/// The near words of the revision `snapshot` is of, built once by `build` into `slot` of its kept
/// fields, or read by `read` at every call where a revision keeps nothing (a writer, shards, a
/// database without a UUID).
template <typename Read, typename Build>
std::shared_ptr<const NearWords> kept_near_words(const cx_database &database, Snapshot &snapshot,
                                                 Once<NearWords> KeptFields::*slot, Read read, Build build) {
    if (database.writable || database.sharded) return read();
    std::unique_lock<std::mutex> lock(kept_lock);
    const std::shared_ptr<KeptFields> entry = kept_of(database.reader, snapshot);
    if (entry == nullptr) {
        lock.unlock();
        return read();
    }
    return built_once(lock, (*entry).*slot, build);
}

}  // namespace

std::shared_ptr<const NearWords> kept_text_words(const cx_database &database, Snapshot &snapshot) {
    const Xapian::Database &reader = database.reader;
    const auto read = [&] { return read_text_words(reader); };
    return kept_near_words(database, snapshot, &KeptFields::text_words, read, [&] {
        const std::string uuid = reader.get_uuid();
        std::shared_ptr<const NearWords> words = derived_text_words(uuid, snapshot.revision);
        if (!words) words = read();
        keep_latest(latest_words, uuid, snapshot.revision, words);
        return words;
    });
}

std::shared_ptr<const NearWords> kept_spelling_words(const cx_database &database, Snapshot &snapshot) {
    const auto read = [&] { return read_spelling_words(database.reader); };
    return kept_near_words(database, snapshot, &KeptFields::spelling_words, read, read);
}

void record_written(const std::string &uuid, Xapian::rev revision, Written record) {
    if (uuid.empty()) return;
    std::lock_guard<std::mutex> guard(kept_lock);
    if (written.size() >= most_written_records) written.erase(written.begin());
    written[{uuid, revision}] = std::move(record);
}

std::shared_ptr<const MeaningCodes> meaning_codes(cx_database &database, uint32_t dimensions) {
    const Xapian::Database &reader = database.reader;
    const size_t bytes = (size_t(reader.get_lastdocid()) + 1) * (sizeof(float) + sizeof(uint64_t) * code_words(dimensions));
    std::unique_lock<std::mutex> lock(kept_lock);
    const std::shared_ptr<KeptFields> entry = kept_of(database);
    if (entry == nullptr) return nullptr;
    if (!entry->codes.valid()) {
        if (entry->bytes + bytes > most_column_bytes) return nullptr;
        entry->bytes += bytes;
        entry->code_dimensions = dimensions;
    } else if (entry->code_dimensions != dimensions) {
        return nullptr;
    }
    const std::string uuid = reader.get_uuid();
    const Xapian::rev revision = snapshot(database)->revision;
    return built_once(lock, entry->codes, [&] {
        std::shared_ptr<const MeaningCodes> codes = derived_codes(reader, uuid, revision, dimensions);
        if (!codes) codes = read_codes(reader, dimensions);
        keep_latest(latest_codes, uuid, revision, codes);
        return codes;
    });
}

std::shared_ptr<const Lengths> lengths(cx_database &database) {
    const Xapian::Database &reader = database.reader;
    const size_t bytes = (size_t(reader.get_lastdocid()) + 1) * sizeof(Xapian::termcount);
    std::unique_lock<std::mutex> lock(kept_lock);
    const std::shared_ptr<KeptFields> entry = kept_of(database);
    if (entry == nullptr) return nullptr;
    const std::string uuid = reader.get_uuid();
    const Xapian::rev revision = snapshot(database)->revision;
    auto derived = entry->lengths.valid() ? std::nullopt : derivable(latest_lengths, uuid, revision, reader.get_doccount());
    if (!entry->lengths.valid()) {
        // Derived from the last kept, they cost what the commits since wrote: kept at once.
        if ((!derived && ++entry->length_asks < searches_before_keeping) || entry->bytes + bytes > most_column_bytes)
            return nullptr;
        entry->bytes += bytes;
    }
    return built_once(lock, entry->lengths, [&] {
        std::shared_ptr<const Lengths> kept =
            derived ? derived_lengths(reader, *derived->first, derived->second) : read_lengths(reader);
        keep_latest(latest_lengths, uuid, revision, kept);
        return kept;
    });
}

std::shared_ptr<const std::vector<Xapian::docid>> expired_items(cx_database &database, int64_t now_ms) {
    const Xapian::Database &reader = database.reader;
    std::unique_lock<std::mutex> lock(kept_lock);
    const std::shared_ptr<KeptFields> entry = kept_of(database);
    if (entry == nullptr) return nullptr;
    const std::string uuid = reader.get_uuid();
    const Xapian::rev revision = snapshot(database)->revision;
    auto derived =
        entry->expirations.valid() ? std::nullopt : derivable(latest_expirations, uuid, revision, reader.get_doccount());
    if (!entry->expirations.valid()) {
        const Xapian::doccount expiring = reader.get_value_freq(slot::expiration);
        const size_t bytes = size_t(expiring) * (sizeof(double) + sizeof(Xapian::docid));
        if ((!derived && ++entry->expiration_asks < searches_before_keeping) || entry->bytes + bytes > most_column_bytes)
            return nullptr;
        entry->bytes += bytes;
    }
    const std::shared_ptr<const Expirations> expirations = built_once(lock, entry->expirations, [&] {
        std::shared_ptr<const Expirations> kept =
            derived ? derived_expirations(reader, *derived->first, derived->second) : read_expirations(reader);
        keep_latest(latest_expirations, uuid, revision, kept);
        return kept;
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

std::shared_ptr<const Ranks> ranks(cx_database &database, Xapian::valueno slot) {
    std::unique_lock<std::mutex> lock(kept_lock);
    const std::shared_ptr<KeptFields> entry = kept_of(database);
    if (entry == nullptr) return nullptr;
    return built_once(lock, entry->ranks[slot], [&] {
        return std::shared_ptr<const Ranks>(read_ranks(database.reader, slot));
    });
}

}  // namespace cx

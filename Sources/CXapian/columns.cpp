// Counted attributes kept in memory as columns, one set per database and revision (`cx::column`).

#include <algorithm>
#include <cmath>
#include <mutex>
#include <unordered_map>

#include "internal.hpp"

namespace cx {

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

/// The columns and ranks of one database's newest revision counted or sorted.
struct Kept {
    Xapian::rev revision = 0;
    size_t bytes = 0;
    std::unordered_map<Xapian::valueno, std::shared_ptr<const Column>> columns;
    std::unordered_map<Xapian::valueno, std::shared_ptr<const Ranks>> ranks;
};

/// Every database's kept columns and ranks, by the database's UUID. Each is built while the lock
/// is held, so two readers of the same new revision build it once.
std::mutex kept_lock;
std::unordered_map<std::string, Kept> kept;

/// What is kept of the revision `reader` has open, with `kept_lock` held; null for a reader behind
/// the newest revision kept of its database, or one of a database without a UUID.
Kept *kept_of(const Xapian::Database &reader) {
    const std::string uuid = reader.get_uuid();
    if (uuid.empty()) return nullptr;
    const Xapian::rev revision = reader.get_revision();
    Kept &entry = kept[uuid];
    if (entry.revision > revision) return nullptr;
    if (entry.revision < revision) entry = Kept{revision, 0, {}, {}};
    return &entry;
}

}  // namespace

std::shared_ptr<const Column> column(const Xapian::Database &reader, Xapian::valueno slot, bool number) {
    const size_t bytes = (size_t(reader.get_lastdocid()) + 1) * (number ? sizeof(double) : sizeof(uint32_t));
    std::lock_guard<std::mutex> guard(kept_lock);
    Kept *entry = kept_of(reader);
    if (entry == nullptr) return nullptr;
    if (auto found = entry->columns.find(slot); found != entry->columns.end()) return found->second;
    if (entry->bytes + bytes > most_column_bytes) return nullptr;
    std::shared_ptr<const Column> built = read_column(reader, slot, number);
    entry->bytes += bytes;
    for (const std::string &text : built->texts) entry->bytes += text.size();
    entry->columns.emplace(slot, built);
    return built;
}

std::shared_ptr<const Ranks> ranks(const Xapian::Database &reader, Xapian::valueno slot) {
    std::lock_guard<std::mutex> guard(kept_lock);
    Kept *entry = kept_of(reader);
    if (entry == nullptr) return nullptr;
    if (auto found = entry->ranks.find(slot); found != entry->ranks.end()) return found->second;
    std::shared_ptr<const Ranks> built = read_ranks(reader, slot);
    entry->ranks.emplace(slot, built);
    return built;
}

}  // namespace cx

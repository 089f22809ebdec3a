// Counted attributes kept in memory as columns, one set per database and revision (`cx::column`).

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

/// The columns of one database's newest counted revision.
struct Kept {
    Xapian::rev revision = 0;
    size_t bytes = 0;
    std::unordered_map<Xapian::valueno, std::shared_ptr<const Column>> columns;
};

/// Every database's kept columns, by the database's UUID. A column is built while the lock is
/// held, so two readers counting the same new revision build it once.
std::mutex kept_lock;
std::unordered_map<std::string, Kept> kept;

}  // namespace

std::shared_ptr<const Column> column(const Xapian::Database &reader, Xapian::valueno slot, bool number) {
    const std::string uuid = reader.get_uuid();
    if (uuid.empty()) return nullptr;
    const Xapian::rev revision = reader.get_revision();
    const size_t bytes = (size_t(reader.get_lastdocid()) + 1) * (number ? sizeof(double) : sizeof(uint32_t));
    std::lock_guard<std::mutex> guard(kept_lock);
    Kept &entry = kept[uuid];
    if (entry.revision > revision) return nullptr;
    if (entry.revision < revision) entry = Kept{revision, 0, {}};
    if (auto found = entry.columns.find(slot); found != entry.columns.end()) return found->second;
    if (entry.bytes + bytes > most_column_bytes) return nullptr;
    std::shared_ptr<const Column> built = read_column(reader, slot, number);
    entry.bytes += bytes;
    for (const std::string &text : built->texts) entry.bytes += text.size();
    entry.columns.emplace(slot, built);
    return built;
}

}  // namespace cx

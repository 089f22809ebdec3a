// What a search reads of an index once a revision (`Snapshot`), and the handle's moves.

#include "snapshot.hpp"

#include <algorithm>

#include "fan_out.hpp"
#include "pairs.hpp"

namespace cx {

std::shared_ptr<Snapshot> snapshot(cx_database &database) {
    if (database.writable) return std::make_shared<Snapshot>();
    // A view of shards reads each at the revision it had when it last moved (`reopen`).
    const Xapian::rev revision = database.sharded ? database.moves : database.reader.get_revision();
    if (database.snapshot && database.snapshot->revision == revision) return database.snapshot;
    database.snapshot = std::make_shared<Snapshot>();
    database.snapshot->revision = revision;
    return database.snapshot;
}

bool reopen(cx_database &database) {
    bool moved = false;
    if (database.shards.empty()) {
        moved = database.reader.reopen();
    } else {
        std::vector<char> each(database.shards.size(), 0);
        for_each_shard(database, [&](size_t shard) { each[shard] = database.shards[shard].reopen(); });
        moved = std::find(each.begin(), each.end(), 1) != each.end();
    }
    if (moved && database.sharded) ++database.moves;
    return moved;
}

Xapian::doccount term_frequency(const cx_database &database, Snapshot &snapshot, const std::string &term) {
    if (const auto found = snapshot.frequencies.find(term); found != snapshot.frequencies.end()) return found->second;
    const Xapian::doccount frequency = database.reader.get_termfreq(term);
    if (snapshot.frequencies.size() >= Snapshot::kept_frequencies) snapshot.frequencies.clear();
    snapshot.frequencies.emplace(term, frequency);
    return frequency;
}

std::string metadata(const cx_database &database, Snapshot &snapshot, const std::string &key) {
    if (const auto found = snapshot.metadata.find(key); found != snapshot.metadata.end()) return found->second;
    std::string value = database.reader.get_metadata(key);
    if (snapshot.metadata.size() >= Snapshot::kept_records) snapshot.metadata.clear();
    snapshot.metadata.emplace(key, value);
    return value;
}

Xapian::doccount value_frequency(const cx_database &database, Snapshot &snapshot, Xapian::valueno slot) {
    if (const auto found = snapshot.value_frequencies.find(slot); found != snapshot.value_frequencies.end())
        return found->second;
    const Xapian::doccount frequency = database.reader.get_value_freq(slot);
    snapshot.value_frequencies.emplace(slot, frequency);
    return frequency;
}

std::shared_ptr<const CommonWords> common_words(const cx_database &database, Snapshot &snapshot) {
    if (database.sharded) return nullptr;
    if (!snapshot.common_words_read) {
        snapshot.common_words = recorded_common_words(database.reader);
        snapshot.common_words_read = true;
    }
    return snapshot.common_words;
}

const ItemLanguages &item_languages(const cx_database &database, Snapshot &snapshot) {
    if (!snapshot.languages)
        snapshot.languages = std::make_shared<const ItemLanguages>(item_languages(database.reader));
    return *snapshot.languages;
}

bool held_in_stemming(const cx_database &database, Snapshot &snapshot, const std::string &form,
                      const std::string &stemming) {
    std::string key = stemming;
    key.append(1, '\0').append(form);
    if (const auto found = snapshot.held.find(key); found != snapshot.held.end()) return found->second;
    const bool is = held_in_stemming(database, item_languages(database, snapshot), form, stemming);
    if (snapshot.held.size() >= Snapshot::kept_held) snapshot.held.clear();
    snapshot.held.emplace(std::move(key), is);
    return is;
}

}  // namespace cx

// The index's accelerators kept true through one door (upkeep.hpp).

#include "upkeep.hpp"

#include "columns.hpp"
#include "meaning_copy.hpp"
#include "tiers.hpp"
#include "typos.hpp"

namespace cx::upkeep {

void stored(cx_database &database, Xapian::docid id, const Xapian::Document &document) {
    note_tiers(database, id, document);
    note_written_words(database, document);
    database.written_items.push_back(id);
}

void rewritten(cx_database &database, Xapian::docid id) { database.written_items.push_back(id); }

void committing(cx_database &database) {
    Xapian::WritableDatabase &writer = database.writer;
    const Xapian::doccount items = writer.get_doccount();
    if (items >= common_words_choice && !database.common_words && !recorded_common_words(writer)) {
        auto common = std::make_shared<const CommonWords>(choose_common_words(word_frequencies(writer), items));
        chose_common_words(writer, *common);
        database.common_words = std::move(common);
    }
    flush_tiers(database);
    if (!database.meaning_copy_path.empty()) database.meaning_copy_before = meaning_copy::stamp(database.writer);
}

void committed(cx_database &database) {
    if (!database.meaning_copy_path.empty()) {
        // The shard has committed: a copy that fails to follow stays at its last revision, and
        // the next commit, or the next writer, compares it whole.
        try {
            meaning_copy::follow(database, database.meaning_copy_before, &database.written_items);
        } catch (...) {
        }
    }
    Written written{std::move(database.written_words), std::move(database.written_items)};
    database.written_words.clear();
    database.written_items.clear();
    record_written(database.writer.get_uuid(), database.writer.get_revision(), std::move(written));
}

void dropped(cx_database &database) {
    forget_tiers(database);
    database.written_words.clear();
    database.written_items.clear();
}

void chose_common_words(Xapian::WritableDatabase &writer, const CommonWords &common, Xapian::docid last) {
    record_common_words(writer, common);
    add_pairs_to_items(writer, common, last);
}

void compacting(Xapian::WritableDatabase &writer) { build_tiers(writer); }

void compacted(Xapian::WritableDatabase &compacted, bool tiers_built) {
    if (tiers_built)
        restamp_tiers(compacted);
    else
        build_tiers(compacted);
}

void merged(Xapian::WritableDatabase &merged, const CommonWords *common, Xapian::docid unpaired) {
    if (common) {
        if (unpaired != 0)
            chose_common_words(merged, *common, unpaired);
        else
            record_common_words(merged, *common);
    }
    // After the pairs: the pairs' tiers are built from them.
    build_tiers(merged);
}

}  // namespace cx::upkeep

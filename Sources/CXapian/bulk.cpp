// Bulk builds: segments written in parallel, then applied to the current database or merged
// with it by compaction.

#include "bulk.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

#include "database.hpp"
#include "document.hpp"
#include "errors.hpp"
#include "schema.hpp"
#include "upkeep.hpp"
#include "write.hpp"

using cx::str;
using cx::Occurrence;
using cx::Segment;

namespace {

/// The default memory budget for every segment's write buffer together.
constexpr uint64_t default_budget = 256ull << 20;

/// A segment commits at least this often, whatever its share of the budget: Xapian's buffers get
/// slower per document as they grow (measured on 50,000 items: 6 and 12 MiB equally fast, 48 MiB
/// 10 % slower).
constexpr uint64_t largest_flush = 12ull << 20;

/// Copies the source paths `from` records into `to`'s metadata.
void copy_source_paths(const Xapian::Database &from, Xapian::WritableDatabase &to) {
    const std::string &prefix = cx::source_key_prefix;
    for (auto key = from.metadata_keys_begin(prefix); key != from.metadata_keys_end(prefix); ++key) {
        const std::string path = from.get_metadata(*key);
        if (to.get_metadata(*key) != path) to.set_metadata(*key, path);
    }
}

/// Copies the Kit's records (`cx::is_kit_key`: its custom fields) `from` holds into `to`'s metadata.
void copy_kit_records(const Xapian::Database &from, Xapian::WritableDatabase &to) {
    const std::string prefix = "searchlight.";
    for (auto key = from.metadata_keys_begin(prefix); key != from.metadata_keys_end(prefix); ++key) {
        if (cx::is_kit_key(*key)) to.set_metadata(*key, from.get_metadata(*key));
    }
}

}  // namespace

namespace {

/// The current database's document of this identity, or 0.
Xapian::docid base_document(Segment &segment, const std::string &unique) {
    if (!segment.has_base) return 0;
    Xapian::PostingIterator posting = segment.base.postlist_begin(unique);
    return posting == segment.base.postlist_end(unique) ? 0 : *posting;
}

/// Stores one item in its segment and notes the occurrence. Returns the outcome.
int32_t add_item(cx_bulk &bulk, Segment &segment, uint32_t segment_index, const cx_item &item, uint64_t sequence,
                 int64_t now_ms) {
    std::string unique = cx::unique_term(str(item.domain), str(item.identifier));
    Occurrence occurrence{cx::fnv1a64(unique), sequence, 0, base_document(segment, unique), segment_index, 0};
    if (item.expiration_ms > 0 && item.expiration_ms <= now_ms) {
        occurrence.outcome = 2;
        if (occurrence.base == 0) {
            occurrence.name = static_cast<uint32_t>(segment.names.size());
            segment.names.push_back(unique);
        }
    } else {
        // The stored version is read once, for comparing and for its views.
        const Xapian::Document stored =
            occurrence.base != 0 ? segment.base.get_document(occurrence.base) : Xapian::Document();
        const cx::Sameness sameness =
            occurrence.base != 0 ? cx::stores_the_same(stored, item) : cx::Sameness::different;
        if (sameness == cx::Sameness::same) {
            occurrence.outcome = 3;
        } else {
            Xapian::Document document = cx::make_document(segment.generator, item, unique);
            if (bulk.common) cx::add_pairs(document, *bulk.common);
            if (occurrence.base != 0) cx::keep_views(document, stored, item);
            segment.count_spelling(document);
            segment.sources.record(segment.writer, item);
            occurrence.stored = segment.add(document, item.data.length, bulk.flush_bytes, item.document_id);
            // An item read from another file than its stored version is stored again for its
            // source, and reported unchanged (4).
            occurrence.outcome = sameness == cx::Sameness::moved ? 4 : occurrence.base != 0 ? 1 : 0;
        }
    }
    segment.occurrences.push_back(occurrence);
    return occurrence.outcome;
}

/// Chooses the build's common words, when the current database has none, from its words and
/// those of `items`, the first piece the build stores: once they are `cx::common_words_choice`
/// items or more together.
void choose_from_first_piece(cx_bulk &bulk, const cx_item *items, size_t count) {
    std::lock_guard<std::mutex> guard(bulk.choice_mutex);
    if (!bulk.choosing) return;
    std::unordered_map<std::string, Xapian::doccount> frequencies;
    Xapian::doccount total = 0;
    const Segment &first = *bulk.segments.front();
    if (first.has_base) {
        for (auto &[word, frequency] : cx::word_frequencies(first.base)) frequencies[word] += frequency;
        total += first.base.get_doccount();
    }
    Xapian::TermGenerator generator = cx::make_generator();
    for (size_t i = 0; i < count; ++i) {
        const Xapian::Document document =
            cx::make_document(generator, items[i], cx::unique_term(str(items[i].domain), str(items[i].identifier)));
        for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it)
            if (cx::is_shared_word(*it)) ++frequencies[*it];
        ++total;
    }
    if (total >= cx::common_words_choice) {
        bulk.common = std::make_shared<const cx::CommonWords>(
            cx::choose_common_words({frequencies.begin(), frequencies.end()}, total));
        bulk.chose = true;
    }
    bulk.choosing = false;
}

}  // namespace

extern "C" {

cx_status cx_bulk_open(const char *base, const char *folder, uint32_t segment_count, uint64_t memory_budget,
                       cx_bulk **out, char **out_error) {
    *out = nullptr;
    if (folder == nullptr || segment_count == 0)
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no folder or no segments", out_error);
    try {
        auto bulk = std::make_unique<cx_bulk>();
        bulk->base_path = base == nullptr ? "" : base;
        const uint64_t budget = memory_budget == 0 ? default_budget : memory_budget;
        bulk->flush_bytes = std::max<uint64_t>(1 << 20, std::min(largest_flush, budget / segment_count));
        for (uint32_t k = 0; k < segment_count; ++k) {
            auto segment = std::make_unique<Segment>();
            segment->path = std::string(folder) + "/segment-" + std::to_string(k);
            // Nobody reads a segment before the merge, and a build that does not finish is thrown
            // away whole: no syncing, and blocks updated in place.
            segment->writer = Xapian::WritableDatabase(
                segment->path, Xapian::DB_CREATE | Xapian::DB_NO_SYNC | Xapian::DB_DANGEROUS);
            if (base != nullptr) {
                segment->base = Xapian::Database(base);
                segment->has_base = segment->base.get_doccount() > 0;
                // Its items would keep their terms beside the run's: a writer upgrades first.
                if (segment->has_base && segment->base.get_metadata(cx::format_key) != cx::format)
                    throw Xapian::InvalidOperationError("the index at " + bulk->base_path +
                                                        " is in an earlier format; upgrade it first");
            }
            bulk->segments.push_back(std::move(segment));
        }
        const Segment &first = *bulk->segments.front();
        if (base != nullptr) bulk->common = cx::recorded_common_words(first.base);
        bulk->choosing = !bulk->common && (!first.has_base || first.base.get_doccount() < cx::common_words_choice);
        *out = bulk.release();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_bulk_choose_common_words(cx_bulk *bulk, const cx_item *items, size_t count, char **out_error) {
    if (bulk == nullptr || bulk->resolved) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no open build", out_error);
    if (items == nullptr && count > 0) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no items", out_error);
    try {
        if (bulk->choosing) choose_from_first_piece(*bulk, items, count);
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_bulk_add(cx_bulk *bulk, uint32_t segment, const cx_item *items, const uint64_t *sequences, size_t count,
                      int64_t now_ms, int32_t *out_outcomes, char **out_error) {
    if (bulk == nullptr || bulk->resolved || segment >= bulk->segments.size())
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no such segment in an open build", out_error);
    if ((items == nullptr || sequences == nullptr) && count > 0)
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no items", out_error);
    try {
        if (bulk->choosing) choose_from_first_piece(*bulk, items, count);
        Segment &target = *bulk->segments[segment];
        for (size_t i = 0; i < count; ++i) {
            const int32_t outcome = add_item(*bulk, target, segment, items[i], sequences[i], now_ms);
            if (out_outcomes != nullptr) out_outcomes[i] = outcome;
        }
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_bulk_keep(cx_bulk *bulk, const uint32_t *documents, const uint64_t *sequences, size_t count,
                       char **out_error) {
    if (bulk == nullptr || bulk->resolved) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no open build", out_error);
    if ((documents == nullptr || sequences == nullptr) && count > 0)
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no documents", out_error);
    try {
        std::lock_guard<std::mutex> guard(bulk->kept_mutex);
        for (size_t i = 0; i < count; ++i) bulk->kept.emplace_back(documents[i], sequences[i]);
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_bulk_resolve(cx_bulk *bulk, cx_bulk_plan *out_plan, char **out_error) {
    *out_plan = cx_bulk_plan{};
    if (bulk == nullptr || bulk->resolved) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no open build", out_error);
    bulk->resolved = true;
    try {
        cx_bulk_plan plan{};
        bulk->superseded = cx::resolve(*bulk, plan);
        for (auto &segment : bulk->segments) {
            segment->commit_all();
            plan.stored += segment->writer.get_doccount();
        }
        const Segment &first = *bulk->segments.front();
        plan.base_documents = first.has_base ? first.base.get_doccount() : 0;
        plan.superseded = bulk->superseded.size();
        *out_plan = plan;
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_bulk_apply(cx_bulk *bulk, cx_database *database, char **out_error) {
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    if (bulk == nullptr || !bulk->resolved) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no resolved build", out_error);
    try {
        Xapian::WritableDatabase &writer = database->writer;
        // Every winner that replaces a stored item has that item among the superseded: delete
        // those, then add every segment document.
        for (Xapian::docid id : bulk->superseded) {
            cx::upkeep::rewritten(*database, id);
            writer.delete_document(id);
        }
        if (bulk->chose) cx::upkeep::chose_common_words(writer, *bulk->common);
        cx::SpellingCounts spelling;
        for (auto &segment : bulk->segments) {
            for (auto it = segment->writer.postlist_begin(""); it != segment->writer.postlist_end(""); ++it) {
                Xapian::Document document = segment->writer.get_document(*it);
                spelling.count(document);
                // As a transaction's items do, they enter the impact tiers they pass, and their
                // words the readers' words for typos.
                cx::upkeep::stored(*database, writer.add_document(document), document);
            }
            copy_source_paths(segment->writer, writer);
        }
        spelling.add_to(writer);
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_bulk_copy_survivors(cx_bulk *bulk, uint32_t segment_index, char **out_error) {
    if (bulk == nullptr || !bulk->resolved || segment_index >= bulk->segments.size())
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no resolved build, or no such segment", out_error);
    try {
        Segment &segment = *bulk->segments[segment_index];
        if (!segment.has_base) return CX_OK;
        const std::vector<Xapian::docid> &superseded = bulk->superseded;
        const size_t count = bulk->segments.size();
        size_t n = 0;
        for (auto it = segment.base.postlist_begin(""); it != segment.base.postlist_end(""); ++it, ++n) {
            if (n % count != segment_index) continue;
            if (std::binary_search(superseded.begin(), superseded.end(), *it)) continue;
            Xapian::Document document = segment.base.get_document(*it);
            if (bulk->chose) cx::add_pairs(document, *bulk->common);
            segment.count_spelling(document);
            segment.add(document, 0, bulk->flush_bytes);
        }
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_bulk_merge(cx_bulk *bulk, const char *destination, bool survivors_copied, bool keep_ids,
                        char **out_error) {
    if (bulk == nullptr || !bulk->resolved || destination == nullptr)
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no resolved build or no destination", out_error);
    try {
        Segment &first = *bulk->segments.front();
        const bool rebuild = first.has_base && survivors_copied;
        Xapian::Database sources;
        Xapian::docid base_first = 0;
        if (first.has_base && !rebuild) {
            sources.add_database(first.base);
            base_first = *first.base.postlist_begin("");
        }
        for (auto &segment : bulk->segments) {
            segment->commit_all();
            sources.add_database(Xapian::Database(segment->path));
        }
        sources.compact(destination, keep_ids ? Xapian::DBCOMPACT_NO_RENUMBER : 0);
        // Nobody reads the new database before it is published, and one that is not published is
        // thrown away: no syncing here (the caller syncs it before publishing). Not DB_DANGEROUS:
        // deleting in place from a compacted glass database damages its postlist table (Xapian
        // 1.4.22, seen in IndexerTests.rerun).
        Xapian::WritableDatabase merged = cx::open_compacted(destination, Xapian::DB_OPEN | Xapian::DB_NO_SYNC);
        // Xapian's compactor renumbers each source after the previous one, squeezing out only the
        // gap before its first document: the current database, first, keeps its documents at
        // `id - (first - 1)`, or, keeping ids, at `id`.
        const Xapian::docid shift = keep_ids ? 0 : base_first - 1;
        // The current database's items, first, get the pairs of the words the build chose.
        Xapian::docid unpaired = 0;
        if (!rebuild) {
            for (Xapian::docid id : bulk->superseded) merged.delete_document(id - shift);
            if (bulk->chose && first.has_base) unpaired = first.base.get_lastdocid() - shift;
        } else {
            // The current database was not compacted in: its source paths and the Kit's records
            // are copied.
            copy_source_paths(first.base, merged);
            copy_kit_records(first.base, merged);
        }
        // An empty current database is not compacted in either, but may hold the Kit's records
        // (custom fields added before the first item).
        if (!first.has_base && !bulk->base_path.empty()) copy_kit_records(first.base, merged);
        merged.set_metadata(cx::format_key, cx::format);
        cx::upkeep::merged(merged, bulk->common.get(), unpaired);
        merged.commit();
        merged.close();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

void cx_bulk_free(cx_bulk *bulk) {
    try {
        delete bulk;
    } catch (...) {
        // Xapian's destructors do not throw; nothing can be reported from here in any case.
    }
}

}  // extern "C"

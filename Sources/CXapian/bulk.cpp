// Bulk builds: segments written in parallel, merged with the current database by compaction.

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

#include "internal.hpp"

using cx::str;

namespace {

/// What one occurrence of an identity did, for resolving identities met more than once.
struct Occurrence {
    /// `fnv1a64` of the unique-id term: occurrences are grouped by it, then checked by the term.
    uint64_t identity;
    uint64_t sequence;
    /// The segment document it stored (0: none) and the current database's document of the same
    /// identity (0: none).
    Xapian::docid stored;
    Xapian::docid base;
    uint32_t segment;
    /// The outcome reported when it was stored (0 added, 1 replaced, 2 expired, 3 unchanged).
    int32_t outcome;
    /// For an occurrence with neither document (an expired item new to the index): its
    /// unique-id term's place in the segment's `names`.
    uint32_t name = 0;
};

/// Bytes a segment's write buffer holds per term of a document, besides its data: Xapian 1.4 keeps
/// each posting and position list in `std::map`s until it flushes (measured: about 11 KB per
/// buffered document of ~100 terms).
constexpr uint64_t bytes_per_term = 112;

/// The default memory budget for every segment's write buffer together.
constexpr uint64_t default_budget = 256ull << 20;

/// A segment commits at least this often, whatever its share of the budget: Xapian's buffers get
/// slower per document as they grow (measured on 50,000 items: 6 and 12 MiB equally fast, 48 MiB
/// 10 % slower).
constexpr uint64_t largest_flush = 12ull << 20;

struct Segment {
    std::string path;
    Xapian::WritableDatabase writer;
    /// This segment's own read-only view of the current database: Xapian objects are not shared
    /// between threads.
    Xapian::Database base;
    bool has_base = false;
    Xapian::TermGenerator generator = cx::make_generator();
    uint64_t buffered = 0;
    std::vector<Occurrence> occurrences;
    std::vector<std::string> names;
    /// Title words, added to the spelling data when the segment commits or gathers too many.
    cx::SpellingCounts spelling;

    void count_spelling(const Xapian::Document &document) {
        spelling.count(document);
        if (spelling.words.size() >= spelling_words) spelling.add_to(writer);
    }

    /// Adds `document`, whose stored data is `data_bytes` long, and commits once the segment holds
    /// `flush_bytes` of changes (an estimate: its terms, and its data).
    ///
    /// A segment is written with DB_DANGEROUS, which glass cannot cancel: when adding fails (the
    /// disk is full, say), glass's own clean-up throws "cancel() not supported" in place of the
    /// failure, which is then reported as the failure to write the segment that it stands for.
    Xapian::docid add(const Xapian::Document &document, uint64_t data_bytes, uint64_t flush_bytes) {
        Xapian::docid added;
        try {
            added = writer.add_document(document);
        } catch (const Xapian::InvalidOperationError &error) {
            throw Xapian::DatabaseError(
                "Cannot write a segment of the bulk build at " + path + "; the disk may be full", error.get_msg());
        }
        buffered += document.termlist_count() * bytes_per_term + data_bytes;
        if (buffered >= flush_bytes) {
            writer.commit();
            buffered = 0;
        }
        return added;
    }

    /// Commits everything the segment holds, the spelling counts gathered so far included.
    void commit_all() {
        spelling.add_to(writer);
        writer.commit();
    }

    /// Distinct words a segment gathers before adding them to its spelling data.
    static constexpr size_t spelling_words = 100000;
};

/// Opens the database a compaction just wrote, for writing. The compactor held its lock while
/// writing; a process this one spawned meanwhile keeps a copy of that lock until it runs its
/// program, so a busy lock is tried again for a while before it counts as a failure.
Xapian::WritableDatabase open_merged(const std::string &path) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (true) {
        try {
            return Xapian::WritableDatabase(path, Xapian::DB_OPEN | Xapian::DB_NO_SYNC);
        } catch (const Xapian::DatabaseLockError &) {
            if (std::chrono::steady_clock::now() >= deadline) throw;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
}

}  // namespace

struct cx_bulk {
    std::string base_path;
    std::vector<std::unique_ptr<Segment>> segments;
    uint64_t flush_bytes = 0;
    bool resolved = false;
    /// Once resolved: the current database's documents that the run supersedes, sorted.
    std::vector<Xapian::docid> superseded;
    std::mutex kept_mutex;
    /// (current database document, sequence) of lines recognized as stored unchanged.
    std::vector<std::pair<Xapian::docid, uint64_t>> kept;
};

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
    } else if (occurrence.base != 0 && cx::stores_the_same(segment.base.get_document(occurrence.base), item)) {
        occurrence.outcome = 3;
    } else {
        Xapian::Document document = cx::make_document(segment.generator, item, unique);
        if (occurrence.base != 0) cx::keep_views(document, segment.base.get_document(occurrence.base), item);
        segment.count_spelling(document);
        occurrence.stored = segment.add(document, item.data.length, bulk.flush_bytes);
        occurrence.outcome = occurrence.base != 0 ? 1 : 0;
    }
    segment.occurrences.push_back(occurrence);
    return occurrence.outcome;
}

/// The latest sequence at which a recognized line kept `document`, or 0. `kept` is sorted.
uint64_t kept_sequence(const std::vector<std::pair<Xapian::docid, uint64_t>> &kept, Xapian::docid document) {
    auto it = std::upper_bound(kept.begin(), kept.end(), std::make_pair(document, UINT64_MAX));
    return it != kept.begin() && (it - 1)->first == document ? (it - 1)->second : 0;
}

/// The unique-id term of a segment's stored document, or of the current database's document.
std::string unique_of(cx_bulk &bulk, const Occurrence &occurrence) {
    Segment &segment = *bulk.segments[occurrence.segment];
    if (occurrence.stored == 0 && occurrence.base == 0) return segment.names[occurrence.name];
    Xapian::Database &database = occurrence.stored != 0 ? segment.writer : segment.base;
    const Xapian::docid id = occurrence.stored != 0 ? occurrence.stored : occurrence.base;
    Xapian::TermIterator term = database.termlist_begin(id);
    term.skip_to(cx::prefix::unique);
    return term != database.termlist_end(id) ? *term : std::string();
}

/// Decides, for every identity of the run, which occurrence wins (the latest, or a recognized
/// line later still), deletes the segment documents that lost, and returns the current database's
/// documents to remove.
std::vector<Xapian::docid> resolve(cx_bulk &bulk, cx_bulk_plan &plan) {
    std::vector<Occurrence> all;
    for (auto &segment : bulk.segments) {
        all.insert(all.end(), segment->occurrences.begin(), segment->occurrences.end());
        segment->occurrences.clear();
        segment->occurrences.shrink_to_fit();
    }
    std::sort(all.begin(), all.end(), [](const Occurrence &a, const Occurrence &b) {
        return a.identity != b.identity ? a.identity < b.identity : a.sequence < b.sequence;
    });
    std::sort(bulk.kept.begin(), bulk.kept.end());
    std::vector<Xapian::docid> superseded;
    std::vector<const Occurrence *> group;
    auto settle = [&] {
        const Occurrence &last = *group.back();
        const Xapian::docid base = last.base;
        const bool kept_later = base != 0 && kept_sequence(bulk.kept, base) > last.sequence;
        for (const Occurrence *occurrence : group) {
            const bool wins = occurrence == &last && !kept_later;
            if (!wins && occurrence->stored != 0)
                bulk.segments[occurrence->segment]->writer.delete_document(occurrence->stored);
            if (occurrence != group.front()) {
                if (occurrence->outcome == 0) ++plan.added_then_updated;
                if (occurrence->outcome == 3) ++plan.unchanged_then_updated;
            }
        }
        if (base != 0 && !kept_later && last.outcome != 3) superseded.push_back(base);
    };
    // Occurrences with the same identity hash are checked by their terms: a hash collision
    // between two identities must not merge them.
    for (size_t begin = 0; begin < all.size();) {
        size_t end = begin + 1;
        while (end < all.size() && all[end].identity == all[begin].identity) ++end;
        if (end - begin == 1) {
            group = {&all[begin]};
            settle();
        } else {
            std::vector<std::pair<std::string, const Occurrence *>> named;
            for (size_t i = begin; i < end; ++i) named.emplace_back(unique_of(bulk, all[i]), &all[i]);
            std::sort(named.begin(), named.end(), [](const auto &a, const auto &b) {
                return a.first != b.first ? a.first < b.first : a.second->sequence < b.second->sequence;
            });
            for (size_t i = 0; i < named.size();) {
                group.clear();
                size_t j = i;
                for (; j < named.size() && named[j].first == named[i].first; ++j) group.push_back(named[j].second);
                settle();
                i = j;
            }
        }
        begin = end;
    }
    std::sort(superseded.begin(), superseded.end());
    superseded.erase(std::unique(superseded.begin(), superseded.end()), superseded.end());
    return superseded;
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
                if (segment->has_base && cx::layout_of(segment->base.get_metadata(cx::format_key)) != cx::Layout::shared)
                    throw Xapian::InvalidOperationError("the index at " + bulk->base_path +
                                                        " is in an earlier format; upgrade it first");
            }
            bulk->segments.push_back(std::move(segment));
        }
        *out = bulk.release();
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
        bulk->superseded = resolve(*bulk, plan);
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
        for (Xapian::docid id : bulk->superseded) writer.delete_document(id);
        cx::SpellingCounts spelling;
        for (auto &segment : bulk->segments) {
            for (auto it = segment->writer.postlist_begin(""); it != segment->writer.postlist_end(""); ++it) {
                Xapian::Document document = segment->writer.get_document(*it);
                spelling.count(document);
                writer.add_document(document);
            }
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
            segment.count_spelling(document);
            segment.add(document, 0, bulk->flush_bytes);
        }
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_bulk_merge(cx_bulk *bulk, const char *destination, bool survivors_copied, char **out_error) {
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
        sources.compact(destination);
        // Nobody reads the new database before it is published, and one that is not published is
        // thrown away: no syncing here (the caller syncs it before publishing). Not DB_DANGEROUS:
        // deleting in place from a compacted glass database damages its postlist table (Xapian
        // 1.4.22, seen in IndexerTests.rerun).
        Xapian::WritableDatabase merged = open_merged(destination);
        // Xapian's compactor renumbers each source after the previous one, squeezing out only the
        // gap before its first document: the current database, first, keeps its documents at
        // `id - (first - 1)`.
        if (!rebuild) {
            for (Xapian::docid id : bulk->superseded) merged.delete_document(id - (base_first - 1));
        }
        merged.set_metadata(cx::format_key, cx::format);
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

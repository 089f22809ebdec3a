// What a bulk build holds, shared by bulk.cpp (adding, applying, merging) and resolve.cpp
// (deciding which occurrence of an identity wins).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "document.hpp"
#include "pairs.hpp"

namespace cx {

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
    /// The outcome reported when it was stored (0 added, 1 replaced, 2 expired, 3 unchanged,
    /// 4 unchanged but read from another file).
    int32_t outcome;
    /// For an occurrence with neither document (an expired item new to the index): its
    /// unique-id term's place in the segment's `names`.
    uint32_t name = 0;
};

/// Bytes a segment's write buffer holds per term of a document, besides its data: Xapian 1.4 keeps
/// each posting and position list in `std::map`s until it flushes (measured: about 11 KB per
/// buffered document of ~100 terms).
inline constexpr uint64_t bytes_per_term = 112;

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
    /// The source files of the items written, recorded in the segment's metadata.
    cx::SourcePaths sources;

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
    /// With `id`, the document is stored at that id.
    Xapian::docid add(const Xapian::Document &document, uint64_t data_bytes, uint64_t flush_bytes,
                      Xapian::docid id = 0) {
        Xapian::docid added = id;
        try {
            if (id == 0) {
                added = writer.add_document(document);
            } else {
                writer.replace_document(id, document);
            }
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

/// Decides, for every identity of the run, which occurrence wins (the latest, or a recognized
/// line later still), deletes the segment documents that lost, counts the plan's updates, and
/// returns the current database's documents to remove, sorted.
std::vector<Xapian::docid> resolve(cx_bulk &bulk, cx_bulk_plan &plan);

}  // namespace cx

struct cx_bulk {
    std::string base_path;
    std::vector<std::unique_ptr<cx::Segment>> segments;
    uint64_t flush_bytes = 0;
    bool resolved = false;
    /// Once resolved: the current database's documents that the run supersedes, sorted.
    std::vector<Xapian::docid> superseded;
    std::mutex kept_mutex;
    /// (current database document, sequence) of lines recognized as stored unchanged.
    std::vector<std::pair<Xapian::docid, uint64_t>> kept;
    /// The common words whose pairs every document the build stores gets (pairs.cpp): the current
    /// database's, or chosen by the build; null for none.
    std::shared_ptr<const cx::CommonWords> common;
    /// Whether the build chose them, so that the current database's items get their pairs too.
    bool chose = false;
    /// Whether the first `cx_bulk_add` is still to choose them (under `choice_mutex`): the current
    /// database has not chosen, and holds fewer than `cx::common_words_choice` items.
    std::atomic<bool> choosing{false};
    std::mutex choice_mutex;
};

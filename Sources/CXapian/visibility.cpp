// Who may see what: the items a search may return, as a set of document ids held in memory.
#include "visibility.hpp"

#include "tiers.hpp"

#include "columns.hpp"
#include "database.hpp"
#include "errors.hpp"
#include "read.hpp"
#include "schema.hpp"
//
// A search from a domain sees every public item and the domain's own private ones. As boolean
// terms that is a filter on `XMpublic OR XP<domain>`, which Xapian must advance alongside every
// candidate: the public items are most of the index, so the filter costs about as much as reading
// their whole posting list again, on every query. Here the items the search may not see (the
// private items of other domains) are read once into a bitmap (`DocumentSetSource`). A page's
// query excludes them (the matcher finds the next hidden item from a candidate by scanning the
// bitmap a word at a time), which keeps its percentages Xapian's; a count filters by the items it
// may see (one bit test a candidate). The bitmaps are kept in the index's snapshot (`Snapshot`);
// most indexes need none, since they hold no private item of another domain.

namespace cx {

namespace {

/// The matcher's view of a `DocumentBits`: a posting list without weights, of its members, or,
/// given `last` (the last document id), of the ids up to it that it leaves out. A query filters by
/// the members (one bit test a candidate) or excludes the others (OP_AND_NOT); excluded, the list
/// is never counted as a part of the query a result matches, as a filter by a posting source is
/// (Xapian 1.4 counts it matched in every result it filters, which raises every percentage).
class DocumentSetSource final : public Xapian::PostingSource {
  public:
    explicit DocumentSetSource(std::shared_ptr<const DocumentBits> bits, Xapian::docid last = 0)
        : bits_(std::move(bits)), last_(last) {}

    Xapian::doccount get_termfreq_min() const override { return complement() ? 0 : bits_->count; }
    Xapian::doccount get_termfreq_est() const override {
        return !complement() ? bits_->count : last_ > bits_->count ? last_ - bits_->count : 0;
    }
    Xapian::doccount get_termfreq_max() const override { return complement() ? last_ : bits_->count; }

    void init(const Xapian::Database &) override {
        current_ = 0;
        started_ = false;
    }

    void next(double) override { move_to(started_ ? current_ + 1 : 1); }

    void skip_to(Xapian::docid did, double) override {
        if (!started_ || did > current_) move_to(did);
    }

    bool check(Xapian::docid did, double) override {
        started_ = true;
        current_ = did;
        return bits_->contains(did) != complement();
    }

    bool at_end() const override { return current_ == 0 && started_; }
    Xapian::docid get_docid() const override { return current_; }
    Xapian::PostingSource *clone() const override { return new DocumentSetSource(bits_, last_); }
    std::string name() const override { return "searchlight.DocumentSet"; }

  private:
    std::shared_ptr<const DocumentBits> bits_;
    /// The last document id, when the list is of the ids the bits leave out; 0 otherwise.
    Xapian::docid last_;
    Xapian::docid current_ = 0;
    bool started_ = false;

    bool complement() const { return last_ != 0; }

    void move_to(Xapian::docid did) {
        started_ = true;
        current_ = complement() ? bits_->first_absent_from(did, last_) : bits_->first_from(did);
    }
};

const std::string private_term = prefix::mode + "private";

/// The items a search in scope all or public may see: every document but the private ones, with
/// the private ones of `own_term` (a domain's `XP` term, or empty) put back; `count` of them.
std::shared_ptr<const DocumentBits> visible_documents(const Xapian::Database &reader, const std::string &own_term,
                                                      Xapian::doccount count) {
    auto bits = std::make_shared<DocumentBits>(reader.get_lastdocid());
    for (auto it = reader.postlist_begin(private_term); it != reader.postlist_end(private_term); ++it) {
        bits->erase(*it);
    }
    if (!own_term.empty()) {
        for (auto it = reader.postlist_begin(own_term); it != reader.postlist_end(own_term); ++it) bits->insert(*it);
    }
    bits->count = count;
    return bits;
}

/// What limits a search to the items `request`'s domain and scope may see: a filter of those
/// items, or the items to leave out; either may be empty.
struct Visibility {
    Xapian::Query visible;
    Xapian::Query hidden;
};

/// Whose private items a search of `request` in scope all or public sees, and how many items that
/// leaves out.
struct Seen {
    /// The domain whose private items stay visible: none in scope public.
    std::string searched;
    /// Its `XP` term, or empty.
    std::string own_term;
    Xapian::doccount private_items = 0, own_items = 0;

    Seen(const cx_database &database, Snapshot &snapshot, const cx_search_request &request)
        : searched(request.scope == CX_SCOPE_PUBLIC ? std::string() : str(request.domain)),
          own_term(searched.empty() ? std::string() : bounded_term(prefix::private_domain, searched)),
          private_items(term_frequency(database, snapshot, private_term)),
          own_items(own_term.empty() ? 0 : term_frequency(database, snapshot, own_term)) {}

    /// Whether any item is hidden from the search.
    bool hides() const { return private_items != own_items; }
};

/// The items a search of `request` (scope all or public, one database) may see, as `snapshot`
/// keeps them (`visible_set`'s set): null when it sees every item.
std::shared_ptr<const DocumentBits> visible_bits(cx_database &database, Snapshot &snapshot,
                                                 const cx_search_request &request) {
    const Xapian::Database &reader = database.reader;
    if (request.all_domains && request.scope != CX_SCOPE_PUBLIC) return nullptr;
    const Seen seen(database, snapshot, request);
    if (!seen.hides()) return nullptr;
    if (auto found = snapshot.visible.find(seen.searched); found != snapshot.visible.end()) return found->second;
    const Xapian::doccount visible = reader.get_doccount() - seen.private_items + seen.own_items;
    std::shared_ptr<const DocumentBits> bits = visible_documents(reader, seen.own_term, visible);
    if (snapshot.visible.size() >= Snapshot::visible_domains) snapshot.visible.clear();
    snapshot.visible.emplace(seen.searched, bits);
    return bits;
}

Visibility visibility(cx_database &database, Snapshot &snapshot, const cx_search_request &request, bool rated) {
    if (request.scope == CX_SCOPE_PRIVATE) {
        // Private items are usually the few: their own term is the cheapest filter.
        return {request.all_domains ? Xapian::Query(private_term)
                                    : Xapian::Query(bounded_term(prefix::private_domain, str(request.domain))),
                {}};
    }
    if (database.sharded) {
        // A posting source sees each shard with its own document ids, and a shard server knows
        // none of ours: the private items to leave out, as boolean terms.
        if (request.all_domains && request.scope != CX_SCOPE_PUBLIC) return {};
        const Seen seen(database, snapshot, request);
        if (!seen.hides()) return {};
        if (seen.own_term.empty()) return {{}, Xapian::Query(private_term)};
        return {{},
                Xapian::Query(Xapian::Query::OP_AND_NOT, Xapian::Query(private_term), Xapian::Query(seen.own_term))};
    }
    std::shared_ptr<const DocumentBits> bits = visible_bits(database, snapshot, request);
    if (!bits) return {};
    if (!rated) return {Xapian::Query((new DocumentSetSource(std::move(bits)))->release()), {}};
    const Xapian::docid last = database.reader.get_lastdocid();
    if (last == 0) return {};
    return {{}, Xapian::Query((new DocumentSetSource(std::move(bits), last))->release())};
}

/// `query` less the items expired at the request's time. Expired items are never returned, pruned
/// or not. Only items that can expire have a value, and few of them have expired, so excluding
/// those is cheaper than testing every match; a search that keeps fields excludes them from the
/// list it keeps (`expired_items`).
Xapian::Query not_expired(cx_database &database, const cx_search_request &request, const Xapian::Query &query) {
    if (keeps_fields(database, request))
        if (std::shared_ptr<const std::vector<Xapian::docid>> expired = expired_items(database, request.now_ms))
            return expired->empty() ? query : Xapian::Query(Xapian::Query::OP_AND_NOT, query, id_query(std::move(expired)));
    return Xapian::Query(Xapian::Query::OP_AND_NOT, query,
                         Xapian::Query(Xapian::Query::OP_VALUE_LE, slot::expiration,
                                       Xapian::sortable_serialise(static_cast<double>(request.now_ms))));
}

}  // namespace

bool visible_set(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                 std::shared_ptr<const DocumentBits> &out) {
    out = nullptr;
    if (request.scope == CX_SCOPE_PRIVATE || database.sharded) return false;
    out = visible_bits(database, snapshot, request);
    return true;
}

Xapian::Query visible_only(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                           const Xapian::Query &query, bool rated) {
    const Visibility limits = visibility(database, snapshot, request, rated);
    Xapian::Query limited = query;
    if (!limits.visible.empty()) limited = Xapian::Query(Xapian::Query::OP_FILTER, limited, limits.visible);
    if (!limits.hidden.empty()) limited = Xapian::Query(Xapian::Query::OP_AND_NOT, limited, limits.hidden);
    return limited;
}

Xapian::Query visible_now(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                          const Xapian::Query &query, bool rated) {
    return not_expired(database, request, visible_only(database, snapshot, request, query, rated));
}

std::optional<Xapian::Query> visible_now_among(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                                       const Xapian::Query &query, std::vector<Xapian::docid> candidates) {
    if (request.scope == CX_SCOPE_PRIVATE || database.sharded) return std::nullopt;
    const std::shared_ptr<const DocumentBits> bits = visible_bits(database, snapshot, request);
    if (bits)
        candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                        [&](Xapian::docid id) { return !bits->contains(id); }),
                         candidates.end());
    return not_expired(database, request, Xapian::Query(Xapian::Query::OP_FILTER, query, id_query(std::move(candidates))));
}

}  // namespace cx

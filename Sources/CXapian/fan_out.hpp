// Asking a view's shard servers at once: each shard on a thread of its own, so that a view of
// shards read through shard servers waits for one round trip rather than one a shard.
#pragma once

#include <exception>
#include <string>
#include <thread>
#include <utility>
#include <vector>
#include <xapian.h>

#include "database.hpp"
#include "schema.hpp"

namespace cx {

/// Whether `database` is a view whose shards are best asked at once (`on_each_shard`): several of
/// them, read through shard servers. Local shards answer in microseconds, less than a thread costs.
inline bool asks_shards_at_once(const cx_database &database) {
    return database.remote && database.shards.size() > 1;
}

/// Calls `body(i)` for each shard `i` of `count`, each on a thread of its own (the first on the
/// caller's), and rethrows the first shard's exception, if any, once every call has returned. A
/// body touches its own shard's handle only, and no Xapian object another thread touches: a
/// Xapian handle is one thread's at a time, and its objects count references without atomics
/// (a query shared by the threads is given to each as a copy of its own, `Query::serialise`).
template <typename Body> void on_each_shard(size_t count, Body body) {
    std::vector<std::exception_ptr> failures(count);
    const auto run = [&](size_t shard) {
        try {
            body(shard);
        } catch (...) {
            failures[shard] = std::current_exception();
        }
    };
    std::vector<std::thread> threads;
    threads.reserve(count > 0 ? count - 1 : 0);
    for (size_t shard = 1; shard < count; ++shard) threads.emplace_back(run, shard);
    if (count > 0) run(0);
    for (std::thread &thread : threads) thread.join();
    for (const std::exception_ptr &failure : failures)
        if (failure) std::rethrow_exception(failure);
}

/// Calls `body(i)` for each shard `i` of `database`'s view: at once when it `asks_shards_at_once`
/// (`on_each_shard`), else one after another.
template <typename Body> void for_each_shard(const cx_database &database, Body body) {
    if (asks_shards_at_once(database)) return on_each_shard(database.shards.size(), body);
    for (size_t shard = 0; shard < database.shards.size(); ++shard) body(shard);
}

/// `each_term` over `database`: over shard servers (`asks_shards_at_once`), every shard's terms
/// read at once and merged in byte order, each term's frequency summed over the shards.
template <typename Body> void each_term(const cx_database &database, const std::string &start, Body body) {
    if (!asks_shards_at_once(database)) return each_term(database.reader, start, body);
    using Terms = std::vector<std::pair<std::string, Xapian::doccount>>;
    std::vector<Terms> lists(database.shards.size());
    on_each_shard(lists.size(), [&](size_t shard) {
        each_term(database.shards[shard], start,
                  [&](const std::string &term, Xapian::doccount frequency) { lists[shard].emplace_back(term, frequency); });
    });
    std::vector<size_t> next(lists.size(), 0);
    for (;;) {
        const std::string *least = nullptr;
        for (size_t shard = 0; shard < lists.size(); ++shard)
            if (next[shard] < lists[shard].size() && (least == nullptr || lists[shard][next[shard]].first < *least))
                least = &lists[shard][next[shard]].first;
        if (least == nullptr) return;
        const std::string term = *least;
        Xapian::doccount frequency = 0;
        for (size_t shard = 0; shard < lists.size(); ++shard)
            if (next[shard] < lists[shard].size() && lists[shard][next[shard]].first == term)
                frequency += lists[shard][next[shard]++].second;
        body(term, frequency);
    }
}

}  // namespace cx

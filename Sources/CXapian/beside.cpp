// The process's helpers (beside.hpp): threads started at the first work given, which live as long
// as the process, each taking the oldest work waiting; and the count of the searches running.

#include "beside.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace cx {

namespace {

class Helpers {
  public:
    explicit Helpers(unsigned count) {
        for (unsigned i = 0; i < count; ++i) std::thread([this] { serve(); }).detach();
    }

    void give(std::function<void()> work) {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            waiting_.push_back(std::move(work));
        }
        ready_.notify_one();
    }

  private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> waiting_;

    [[noreturn]] void serve() {
        for (;;) {
            std::function<void()> work;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                ready_.wait(lock, [this] { return !waiting_.empty(); });
                work = std::move(waiting_.front());
                waiting_.pop_front();
            }
            // The work keeps what it throws for its giver (`Beside::get`).
            work();
        }
    }
};

unsigned helper_count() {
    static const unsigned count = [] {
        const unsigned cores = std::thread::hardware_concurrency();
        return cores > 1 ? cores - 1 : 0;
    }();
    return count;
}

Helpers &helpers() {
    // Never destroyed: its threads serve until the process ends.
    static Helpers *const shared = new Helpers(helper_count());
    return *shared;
}

/// The searches running in this process (`SearchRunning`).
std::atomic<unsigned> running{0};

}  // namespace

SearchRunning::SearchRunning() { running.fetch_add(1, std::memory_order_relaxed); }

SearchRunning::~SearchRunning() { running.fetch_sub(1, std::memory_order_relaxed); }

bool has_spare_core() { return running.load(std::memory_order_relaxed) <= helper_count(); }

void give_to_helpers(std::function<void()> work) { helpers().give(std::move(work)); }

}  // namespace cx

// Work a search hands to another core while it does its own (`Beside`): the process's helpers,
// one thread for each core but the caller's, take it; the giver runs it itself when none has by
// the time it needs the result, so a busy process never waits for a queue.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <future>
#include <memory>

namespace cx {

/// One search of this process, counted while it runs (`has_spare_core`).
class SearchRunning {
  public:
    SearchRunning();
    ~SearchRunning();
    SearchRunning(const SearchRunning &) = delete;
    SearchRunning &operator=(const SearchRunning &) = delete;
};

/// Whether a core is free of this process's searches for a helper: fewer searches run than the
/// machine has cores. A busy process gains nothing by handing work on (every core already runs a
/// search), and a search would wait for a helper the scheduler has put aside.
bool has_spare_core();

/// Hands `work` to the process's helpers (`has_spare_core` says whether one is free).
void give_to_helpers(std::function<void()> work);

/// A result made by `work` on another core. `get` returns it (or throws what `work` threw),
/// running `work` on the caller's thread when no helper has begun it. A `Beside` left without
/// `get` (its giver threw) takes the work back when no helper has begun it, and otherwise waits
/// for the helper, since `work` may use what its giver holds.
template <typename Result> class Beside {
  public:
    Beside() = default;
    explicit Beside(std::function<Result()> work) : state_(std::make_shared<State>(std::move(work))) {
        give_to_helpers([state = state_] { state->run(); });
    }
    Beside(Beside &&) = default;
    Beside &operator=(Beside &&other) {
        finish();
        state_ = std::move(other.state_);
        return *this;
    }
    Beside(const Beside &) = delete;
    Beside &operator=(const Beside &) = delete;
    ~Beside() { finish(); }

    bool valid() const { return state_ != nullptr; }

    Result get() {
        std::shared_ptr<State> state = std::move(state_);
        state->run();
        return state->result.get();
    }

  private:
    struct State {
        explicit State(std::function<Result()> work) : task(std::move(work)), result(task.get_future()) {}
        std::atomic<bool> begun{false};
        std::packaged_task<Result()> task;
        std::future<Result> result;

        /// Runs the work unless a thread already has.
        void run() {
            if (!begun.exchange(true)) task();
        }
    };
    std::shared_ptr<State> state_;

    void finish() {
        if (!state_) return;
        std::shared_ptr<State> state = std::move(state_);
        if (state->begun.exchange(true)) state->result.wait();
    }
};

}  // namespace cx

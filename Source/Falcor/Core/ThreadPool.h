#pragma once
#include "Core/Macros.h"
#include <cstddef>
#include <cstdint>
#include <functional>

namespace falcor
{
/// The engine's worker threads. Work is split into tasks whose boundaries depend only on the
/// problem size, never on the thread count, so results are bit-identical on any number of
/// threads as long as each task writes its own outputs (reductions combine per-task partials in
/// task order).
class FALCOR_API ThreadPool
{
public:
    /// More threads than this are refused (FALCOR_NUM_THREADS is clamped to it).
    static constexpr uint32_t kMaxThreadCount = 1024;

    static ThreadPool& get();

    /// Number of threads that execute tasks, including the calling thread. Defaults to the
    /// FALCOR_NUM_THREADS environment variable, else the hardware concurrency.
    uint32_t getThreadCount() const;
    void setThreadCount(uint32_t count);

    /// Runs task(i) for every i in [0, taskCount) and returns when all are done. The calling thread
    /// takes part. The first exception thrown by a task is rethrown here. Calls made from inside a
    /// task run serially on that thread.
    void run(size_t taskCount, const std::function<void(size_t)>& task);

    ~ThreadPool();

private:
    ThreadPool();
    struct Impl;
    Impl* mpImpl;
};

/// Calls body(begin, end) over consecutive chunks of at most `grain` indices covering [0, count).
template<typename F>
void parallelFor(size_t count, size_t grain, F&& body)
{
    if (count == 0)
        return;
    grain = grain ? grain : 1;
    size_t chunks = (count + grain - 1) / grain;
    ThreadPool::get().run(chunks, [&](size_t chunk) { body(chunk * grain, std::min(count, (chunk + 1) * grain)); });
}

/// Calls body(i) for every i in [0, count): on the pool in chunks of `grain` when `parallel`,
/// else in order on this thread (for callers that are already one task among many).
template<typename F>
void forEachIndex(size_t count, size_t grain, bool parallel, F&& body)
{
    auto run = [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i)
            body(i);
    };
    if (parallel)
        parallelFor(count, grain, run);
    else
        run(0, count);
}

/// Calls body(y) for every row y in [0, height), rows distributed over the pool.
template<typename F>
void parallelForRows(uint32_t height, F&& body)
{
    parallelFor(height, 4, [&](size_t y0, size_t y1) {
        for (size_t y = y0; y < y1; ++y)
            body(uint32_t(y));
    });
}
} // namespace falcor

#include "Core/ThreadPool.h"
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace falcor
{
namespace
{
thread_local bool tInsideTask = false;

uint32_t defaultThreadCount()
{
    if (const char* env = std::getenv("FALCOR_NUM_THREADS"))
    {
        int n = std::atoi(env);
        if (n > 0)
            return uint32_t(std::min(n, int(ThreadPool::kMaxThreadCount)));
    }
    return std::max(1u, std::thread::hardware_concurrency());
}
} // namespace

struct ThreadPool::Impl
{
    struct Job
    {
        const std::function<void(size_t)>* task = nullptr;
        size_t count = 0;
        std::atomic<size_t> next{0};
        std::atomic<size_t> done{0};
        int activeWorkers = 0; // Guarded by Impl::mutex; the job outlives every worker inside it.
        std::exception_ptr error;
        std::mutex errorMutex;
    };

    std::mutex mutex;
    std::condition_variable wake;
    std::condition_variable finished;
    std::vector<std::thread> workers;
    Job* job = nullptr;
    uint64_t generation = 0;
    bool stop = false;
    uint32_t threadCount = 1;
    std::mutex runMutex; // One job at a time.

    void work(Job& j)
    {
        tInsideTask = true;
        for (size_t i; (i = j.next.fetch_add(1)) < j.count;)
        {
            try
            {
                (*j.task)(i);
            }
            catch (...)
            {
                std::lock_guard l(j.errorMutex);
                if (!j.error)
                    j.error = std::current_exception();
            }
            j.done.fetch_add(1);
        }
        tInsideTask = false;
    }

    void workerLoop()
    {
        uint64_t seen = 0;
        while (true)
        {
            Job* j;
            {
                std::unique_lock l(mutex);
                wake.wait(l, [&] { return stop || (job && generation != seen); });
                if (stop)
                    return;
                seen = generation;
                j = job;
                ++j->activeWorkers;
            }
            work(*j);
            {
                std::lock_guard l(mutex);
                --j->activeWorkers;
            }
            finished.notify_all();
        }
    }

    void resize(uint32_t count)
    {
        {
            std::lock_guard l(mutex);
            stop = true;
        }
        wake.notify_all();
        for (auto& t : workers)
            t.join();
        workers.clear();
        stop = false;
        threadCount = std::max(1u, count);
        for (uint32_t i = 1; i < threadCount; ++i)
            workers.emplace_back([this] { workerLoop(); });
    }
};

ThreadPool::ThreadPool() : mpImpl(new Impl)
{
    mpImpl->resize(defaultThreadCount());
}

ThreadPool::~ThreadPool()
{
    mpImpl->resize(1);
    delete mpImpl;
}

ThreadPool& ThreadPool::get()
{
    static ThreadPool pool;
    return pool;
}

uint32_t ThreadPool::getThreadCount() const { return mpImpl->threadCount; }

void ThreadPool::setThreadCount(uint32_t count)
{
    std::lock_guard l(mpImpl->runMutex);
    mpImpl->resize(count);
}

void ThreadPool::run(size_t taskCount, const std::function<void(size_t)>& task)
{
    if (taskCount == 0)
        return;
    if (tInsideTask || taskCount == 1 || mpImpl->threadCount == 1)
    {
        for (size_t i = 0; i < taskCount; ++i)
            task(i);
        return;
    }
    std::lock_guard runLock(mpImpl->runMutex);
    Impl::Job job;
    job.task = &task;
    job.count = taskCount;
    {
        std::lock_guard l(mpImpl->mutex);
        mpImpl->job = &job;
        ++mpImpl->generation;
    }
    mpImpl->wake.notify_all();
    mpImpl->work(job);
    {
        std::unique_lock l(mpImpl->mutex);
        mpImpl->finished.wait(l, [&] { return job.done.load() == job.count && job.activeWorkers == 0; });
        mpImpl->job = nullptr;
    }
    if (job.error)
        std::rethrow_exception(job.error);
}
} // namespace falcor

#pragma once
#include "Core/Error.h"
#include <atomic>
#include <string>
#include <utility>
#include <mutex>
#include <thread>

namespace falcor
{
/// Serializes the use of one object by several threads, and refuses re-entrant changes: a call
/// that, on the thread already using the object, would change it from inside another of its
/// calls (a render pass resizing the graph that is executing it). Reads may re-enter.
///
///     auto scope = mAccess.modify("resize");   // blocks while another thread uses the object
///     auto scope = mAccess.read();             // same, but passes through on the owning thread
class SerialAccess
{
public:
    class [[nodiscard]] Scope
    {
    public:
        Scope() = default;
        Scope(Scope&& other) noexcept : mpAccess(std::exchange(other.mpAccess, nullptr)) {}
        Scope& operator=(Scope&&) = delete;
        ~Scope()
        {
            if (mpAccess)
            {
                mpAccess->mOwner.store(std::thread::id(), std::memory_order_relaxed);
                mpAccess->mMutex.unlock();
            }
        }

    private:
        friend class SerialAccess;
        explicit Scope(const SerialAccess* pAccess) : mpAccess(pAccess) {}
        const SerialAccess* mpAccess = nullptr;
    };

    /// Waits for exclusive use. Throws naming `object` and `operation` if this thread is already
    /// inside a call on the object.
    Scope modify(const std::string& object, const char* operation) const
    {
        if (isUsedByThisThread())
            throwError("Can't ", operation, " ", object, " while it is executing on this thread (called from inside one of its passes?).");
        return acquire();
    }

    /// Waits for exclusive use, unless this thread already has it (then the scope is empty).
    Scope read() const { return isUsedByThisThread() ? Scope() : acquire(); }

    bool isUsedByThisThread() const { return mOwner.load(std::memory_order_relaxed) == std::this_thread::get_id(); }

private:
    Scope acquire() const
    {
        mMutex.lock();
        mOwner.store(std::this_thread::get_id(), std::memory_order_relaxed);
        return Scope(this);
    }

    mutable std::mutex mMutex;
    mutable std::atomic<std::thread::id> mOwner{};
};
} // namespace falcor

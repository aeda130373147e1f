#pragma once
// A process forked from a profiled one inherits the collector's memory, its subscriber, its
// exit and signal handlers and its open files, but none of its threads, its CUDA context or its
// counter lock (record locks are per process). Such a child profiles nothing: from the first
// instruction after fork (pthread_atfork) every callback, exit handler and signal handler of
// ours does nothing in it, so it never calls CUDA or CUPTI for us, never writes the parent's
// record or partial file, and whatever ends it changes nothing the parent does.
// A child that execs (or was spawned) loads the injection afresh and gets a record of its own.
namespace limiter::detail {

// Installs the fork handler, once per process (the collector's constructor calls it).
void watch_for_fork() noexcept;

// True in a process forked from the one that installed the handler: a flag the fork handler
// sets, cheap enough for every callback. Async-signal-safe.
bool in_forked_child() noexcept;

// As in_forked_child(), and also after a fork that ran no handlers (_Fork, a raw clone): the
// pid tells. For exit and signal handlers and the public calls, not for every launch.
bool in_forked_child_by_pid() noexcept;

}  // namespace limiter::detail

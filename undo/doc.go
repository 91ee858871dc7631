// Package undo owns recording and undoing every change citune makes:
// register fields, sysfs/procfs files and kernel module parameters.
//
// A Session is one process's ownership of one target (TargetID). Opening
// it takes the target's lock; every change goes through it (Apply,
// RecordFile, RecordModParam, RecordBoot), which journals the original of
// each changed item before the first write; Restore puts back what the
// session changed, newest change first, by read-modify-write of the
// changed fields only (bits the driver owns are never touched); Halt does
// the same for signal and quit paths (periph's conn.Resource); `citune
// restore` uses RestoreAll, which returns a target to the state before
// citune touched it.
//
// Decisions:
//   - The journal is one JSON file (version 2) with one entry per target
//     key. Every read-modify-write of it holds an exclusive flock on
//     "JOURNAL.lock" for the whole load-modify-save, so concurrent
//     processes never lose each other's originals. It is written to
//     "JOURNAL.tmp" (one fixed name: a process killed mid-write leaves at
//     most that file, which the next save replaces), synced and renamed.
//   - Each target has a lock file in "locks/" beside the journal, held with
//     flock for the owner's whole life and holding the owner's identity
//     (pid, its start time from /proc, command, since when). The kernel
//     releases a flock when its process dies, so a dead owner's lock is
//     taken over without stale-lock guessing. Long owners (sweep, TUI)
//     are refused at once when the target is owned; short owners (set,
//     restore) wait for another short owner and are refused by a long one
//     unless forced.
//   - A long session registers itself in its journal entry and deregisters
//     after a clean restore (or when the user keeps its values): a
//     registration whose process is gone marks an interrupted session, so a
//     new sweep does not take the interrupted one's values for originals.
//   - A record is dropped when its field (file, parameter) is back at its
//     original value, so the journal always says what differs from before
//     citune.
//   - The session's originals in memory are authoritative for what it
//     changed: a journal that vanished, was replaced, rewritten or damaged
//     under it stops it (JournalError) and it restores from memory.
//   - Module reloading is recorded as data (Reload), never as a command
//     line to parse again.
//   - The journal is where DefaultPath says, never in a shared folder
//     like /tmp. A target's identity is its physical base for /dev/mem,
//     the device and inode of an image, never a label. A second lock
//     lives with the target (a flock on the image,
//     /run/citune/devmem-BASE.lock), so sessions under different journals
//     still meet.
//   - The simulated controller's registers are never journalled or
//     locked (they die with the process); files and module parameters a
//     simulated sweep changes on the machine are.
package undo

// Package checkpoint keeps a checkpoint of a workspace per turn, so that a
// turn's changes to files can be taken back: the groundwork of /undo,
// /rewind and co undo (not wired into the chat yet).
//
// Changes are found by scanning, not by hooking the tools: whoever changed
// a file (the file tools, a shell command in the Docker sandbox or
// unsandboxed, an editor) does not matter. Begin scans the workspace before
// a turn and End after it; the difference is the turn's record.
//
// A scan reads each entry's lstat (size, mtime, ctime, mode, inode, owner)
// and hashes a file only when it is a candidate: new, its stat differs from
// the last scan's, or it was racy then (modified within racyWindow of that
// scan's start, so a rewrite in the same timestamp tick with the same size
// cannot pass as unchanged; git's "racy clean" rule). A file's content is
// stored when it is hashed, so the content a turn is about to overwrite is
// already in the store when the turn starts: the store holds one copy of
// the workspace's current files (the baseline) plus what turns replaced.
//
// The store, in Open's dir (under co's data folder, never in the
// workspace; it is not a git repository and co's checkpoints never touch
// the user's repository, index or stash):
//
//	objects/ab/cdef…   content by SHA-256, gzip (BestSpeed): source and
//	                   text shrink 3–5×, and only candidates pay for it
//	index              the last scan, a cache: lost, every file is
//	                   hashed again
//	turns/ID.json      one turn's changes, written then renamed, so a
//	                   half-written record is never read as a whole one
//
// An object is written to a temporary file and renamed; it is checked
// against its hash when read, so a damaged object is reported as not
// restorable, never restored wrong.
//
// What is skipped: .git (a directory or a worktree's .git file), anywhere:
// the repository is the user's and restoring its objects, refs or index
// under git's feet could lose commits made meanwhile; git's own history is
// the way back there. Files larger than Options.MaxFileSize are not stored:
// a turn that changes or deletes one records it as not restorable (a file
// the turn created is still removed). Sockets, FIFOs and devices are not
// recorded. A workspace of more than Options.MaxEntries entries is not
// checkpointed at all: Begin returns a *TooLargeError.
//
// Restore puts each path the turn changed back as it was before the turn:
// bytes, mode, owner (when permitted), symlinks as links; a file's mtime is
// the time of the restore, as after git checkout, so build tools see it
// changed. A path that changed again after the turn ended is a conflict,
// left as it is and named, unless force. Hard links come back as separate
// files.
//
// Prune removes old turn records by Rule (age, count, bytes of the turns'
// own content) and then every object nothing refers to.
package checkpoint

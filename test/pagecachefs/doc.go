// Package pagecachefs is a FUSE file system (github.com/hanwen/go-fuse/v2,
// raw API) that keeps every change in memory, a page cache of its own,
// until a program makes it durable, and drops what is not durable at a
// power loss. The crash suite mounts one over each simulated node's root,
// sysroot and /run (test/framework SimNodeOptions.PageCache).
//
// It is a test oracle of its own: its rules come from POSIX and the Linux
// man pages, with the ext4 and XFS behaviour named below where those are
// silent, and it shares no code with the daemon's file helpers
// (pkg/daemon/files). Its tests (model_test.go, fuse_test.go) are tables
// of operations and the tree a power loss leaves, written from those rules.
//
// # What is durable when
//
// Every inode has a live state (what processes see) and a durable state
// (what a power loss leaves).
//
//   - File data: durable after fsync(2) or fdatasync(2) of the file. "fsync()
//     transfers all modified in-core data of the file ... so that all changed
//     information can be retrieved even if the system crashes" (fsync(2)).
//     Until its first fsync a new file is durable empty.
//   - File metadata (mode, owner, times): durable after fsync, not after
//     fdatasync ("fdatasync() ... does not flush modified metadata unless
//     that metadata is needed in order to allow a subsequent data retrieval",
//     fsync(2); the size is such metadata, the mode is not). Until then the
//     metadata it was created with.
//   - Names: a create, mkdir, symlink, link, unlink or rmdir is durable after
//     fsync of the directory that holds the name: "Calling fsync() does not
//     necessarily ensure that the entry in the directory containing the file
//     has also reached disk. For that an explicit fsync() on a file
//     descriptor for the directory is also needed" (fsync(2)). A new
//     directory's own entries need its own fsync, and its name its parent's:
//     a file fsynced in a directory whose creation was never made durable is
//     lost with the directory.
//   - Renames: within one directory, durable after that directory's fsync.
//     Across two directories (and renameat2's RENAME_EXCHANGE), durable as a
//     whole after an fsync of either directory. POSIX says nothing here;
//     ext4 and XFS (RHCOS's root file system) log a rename as one
//     transaction touching both directories (fs/ext4/namei.c ext4_rename:
//     one journal handle; fs/xfs xfs_rename: one tr_rename transaction), and
//     an fsync of a directory forces the log through that directory's last
//     transaction (fs/ext4/fsync.c ext4_sync_file ->
//     jbd2_complete_transaction; fs/xfs/xfs_file.c xfs_dir_fsync ->
//     xfs_log_force_inode), so either fsync makes both sides durable, never
//     one. Requiring both would model no Linux file system and would leave
//     a half-done rename (both names, or neither) that none of them can
//     produce. A rename's other side is committed by name: renames of the
//     directories above it are not (a journal would commit them too).
//   - syncfs(2) and sync(2) make everything durable, and so does an orderly
//     shutdown (systemd-shutdown syncs before it unmounts). The kernel does
//     not forward syncfs(2) to a /dev/fuse server (see IoctlSyncfs), so a
//     program that calls syncfs also sends IoctlSyncfs (Syncfs does both);
//     the harness calls FS.SyncAll for a shutdown.
//
// kill -9 of a process changes nothing: the page cache belongs to the
// kernel, and survives its processes. FS.PowerLoss drops everything not
// durable: each inode becomes its durable state, and whatever the durable
// directory entries no longer reach from the root is gone.
//
// # What it does not model, and why that is enough here
//
//   - Writeback before the crash. A real kernel writes dirty pages back
//     after dirty_expire_centisecs (30 s) and ext4 commits its journal every
//     5 s, so a power loss can leave any subset of the unsynced changes
//     durable; here a power loss always drops all of them: one worst case,
//     not every reachable state. So a change that neither an fsync of its
//     file nor of its directory covers comes back as the old state, never as
//     the mixture writeback can leave (the classic: a rename committed by the
//     journal over a file whose data was never written, an empty file). A
//     missing file fsync is caught when a later directory fsync publishes the
//     rename (the crash suite's removed-fsync check is this case); a missing
//     directory fsync when the next boot trusts the name.
//   - Reordering inside one file, torn pages and sectors. A file's durable
//     content is exactly what it held at its last fsync, never part of the
//     writes after it. The daemon and the rpm-ostree double never update a
//     file in place: each write is a new file, fsynced, renamed over the old
//     one, so only whole-file outcomes matter to them. In-place updates
//     (databases, logs) would need torn-write modelling; nothing here does
//     them.
//   - Journal side effects. On ext4 and XFS an fsync of one file or
//     directory also commits every metadata change logged before it (the
//     journal is one sequence); here an fsync covers only its own inode's
//     names. A program that relies on that side effect fails here, and
//     should: POSIX promises no more.
//   - Extended attributes, devices, FIFOs, sockets, O_TMPFILE, fallocate
//     and copy_file_range (the kernel falls back to reads and writes),
//     POSIX and BSD locks (the kernel keeps them itself, as for any FUSE
//     file system without lock support), I/O errors and ENOSPC. Neither the
//     daemon nor the double uses the first ones on a node's disk, and a
//     failing disk is another test.
package pagecachefs

#pragma once
// Writing output files without ever losing or damaging what is there, and the checks of input and
// output paths that the command line makes before anything is measured. No torch here.
//
// write_file_atomically is the one writer of every output file (JSON reports, `report -o`):
//   - a regular file or a new path is replaced atomically: a temporary file created by us (O_EXCL)
//     in the same folder, written, fsync'ed, renamed over the target, and the folder fsync'ed; a
//     reader sees the old file or the new one, never half of one; an existing file keeps its mode;
//   - a symlink is followed and its *target* is replaced that way: the link stays a link;
//   - a device node, a FIFO, a socket or /dev/stdout (/dev/fd/N, /proc/self/fd/N) is written in
//     place: it is never replaced by a regular file;
//   - a directory is refused, with one line.
// It only ever renames a temporary file it created itself.
#include <cstddef>
#include <string>
#include <string_view>

namespace accelbench {

// Writes `bytes` to `path` as described above. Throws UsageError (one line naming the path and the
// reason) when it cannot; then the target is left as it was (regular files) and no temporary is left.
void write_file_atomically(const std::string& path, std::string_view bytes);

// Whether two paths name the same file: by device and inode when both exist (following symlinks,
// so a link and its target, or a hard link, are the same file), else by absolute, normalized path
// with the symlinks of its existing folders resolved.
bool same_file(const std::string& a, const std::string& b);

// An output file the command will write later: `path` is not empty, not a directory; when it
// exists (after following symlinks) it is writable; otherwise its folder exists, is a folder and is
// writable (a read-only file system counts as not writable). Creates nothing. Throws UsageError
// naming `option`, e.g. "--json out.json: directory /x does not exist".
void check_output_path(const std::string& path, const char* option);

// An input file the command will read: it exists and is a regular file (following symlinks); a
// directory gives "... is a directory", a device node or FIFO "... is not a regular file".
// `what` names it in the message (e.g. "IDX file", "--text file"). Throws UsageError.
void check_regular_input_file(const std::string& path, const char* what);

// The temporary files of writers that were killed (SIGKILL, power loss) before they could remove
// them: the regular files in `dir` named `prefix` + a process id (+ anything after a '.') whose
// process no longer exists. write_file_atomically names its temporaries ".NAME.tmp.PID.XXXXXX" and
// calls it for ".NAME.tmp."; the history store for its ".NAME.new-" files; with StaleKind::folders,
// the folders so named instead (a sweep's scratch folders, "accelbench-sweep-PID.XXXXXX", removed
// with remove_tree). Returns how many it removed.
enum class StaleKind { files, folders };
std::size_t remove_stale_temporaries(const std::string& dir, const std::string& prefix, StaleKind kind = StaleKind::files);

// Removes a folder of this program's own making and everything under it (symlinks themselves, never
// what they point to), with POSIX calls (nftw, unlink, rmdir), not std::filesystem::remove_all: the
// CUDA build of libtorch (pip torch 2.11+cu130) exports its own std::filesystem::remove_all, the
// dynamic linker binds this program's call to it, and there it jumps to a null pointer (SIGSEGV on
// the H200, found by the crash handler's stack dump). Best effort: returns false when something
// could not be removed; a missing folder is true.
bool remove_tree(const std::string& path);

}  // namespace accelbench

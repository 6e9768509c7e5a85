#pragma once
// Who may read what io writes (issue 40): the one place that decides file and folder modes. Patient data (images,
// labels, records naming patients, the catalogue index) is never readable by others, whatever the umask:
// - Share: the share store, which several annotators use through the share's group. Files 0640, folders 02770
//   (setgid, so everything below a folder keeps its group: the share's group is the group of the store's folders,
//   set by whoever prepares the share with chgrp + chmod g+s). Set exactly, so umask 022 or 000 cannot widen it and
//   umask 077 cannot lock the group out. The store never overwrites content, so files need no group write; the
//   per-host audit log, appended to by every user of one machine, is 0660 (kShareAppendFileMode).
// - Private: what one user keeps on local disk (fetched series, datasets and checkpoints, the catalogue index, the
//   autosave journal). Files 0600, folders 0700, exactly.
// - Personal: a file at a path the user chose (exports, CLI outputs, label tables, reports). New files are 0640
//   narrowed further by the umask: never readable by others, never wider than the user's umask allows. A file
//   that is replaced keeps its mode and group (someone chose them).

#include <string>
#include <sys/types.h>

#include "core/error.h"

namespace delineate::io {

// - Sealed: Private, and the content sealed with this user's at-rest key (AES-256-GCM, io/base/sealed_file.h) unless
//   sealing is switched off ($DELINEATE_AT_REST=plain). For patient data io keeps on this machine: fetched series and
//   datasets, the autosave journal. Readers of io open sealed files transparently.
enum class FileAccess { Personal, Share, Private, Sealed };
// Private or Sealed: one user's alone.
inline bool isPrivateAccess(FileAccess access) { return access == FileAccess::Private || access == FileAccess::Sealed; }

// The mode a new file gets (for Personal before the umask narrows it).
mode_t fileModeFor(FileAccess access);
// The mode a folder io creates gets; Personal folders (rare: io creates no folder at a user's path) are 0750 before
// the umask.
mode_t folderModeFor(FileAccess access);
// A share file that every user of the share's group appends to (the per-host audit log): 0660, set exactly.
inline constexpr mode_t kShareAppendFileMode = 0660;
// Whether the mode is set exactly (fchmod/chmod after creation) rather than left to the umask to narrow.
bool modeIsExact(FileAccess access);

// Sets an open file's mode as `access` says (fchmod; nothing for Personal, whose open(2) mode did it). Best effort
// where a share ignores or refuses modes (some SMB mounts): the error is not the writer's to report.
void applyFileMode(int fd, FileAccess access);

// Creates `folder` and every missing parent, each new one with folderModeFor(access) (chmod after mkdir, so the
// umask cannot widen it and the setgid bit, which mkdir(2) does not take, is set). Folders that exist are left as
// they are. An error names the folder that could not be made.
core::Status createFolders(const std::string& folder, FileAccess access);

}  // namespace delineate::io

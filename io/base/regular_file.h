#pragma once
// The one check every reader of a user-given path makes before it opens the path: is it a regular file?
//
// A named pipe blocks open(2) until someone writes to it (`mkfifo x.nii; delineate-cli info x.nii` used to hang),
// /dev/zero never ends, a socket cannot be opened at all, and a folder is not an image. Readers of images, label
// maps, DICOM files and label tables therefore classify the path with stat(2) first, so such a path is refused with
// its kind named and is never opened (opening some devices has effects of its own), and then open it without
// blocking and check again on the descriptor, so a file swapped for a pipe between the two looks is refused too.
//
// io/base/file_read.h is different on purpose: it reads the store's own records (and pipes and devices there to
// their end, never waiting). User-given inputs that it reads (label tables) call checkRegularFile first.

#include <string>
#include <string_view>

#include "core/error.h"

namespace delineate::io {

// What a stat mode is, in words, when it is not a regular file ("a named pipe (FIFO)", "a socket", "a character
// device", "a block device", "a folder"); empty for a regular file.
std::string specialFileKind(unsigned mode);

// Success for a regular file (symbolic links followed). Otherwise an error naming `path`: NotFound (missing) or
// ReadFailed ("<what> is a named pipe (FIFO), not a regular file"). `what` names the kind of input ("image file").
core::Status checkRegularFile(const std::string& path, std::string_view what);

// As checkRegularFile, then open(2) read-only (close-on-exec) without ever blocking, the descriptor checked again
// with fstat and returned in blocking mode. The caller closes it.
core::Result<int> openRegularFile(const std::string& path, std::string_view what);

}  // namespace delineate::io

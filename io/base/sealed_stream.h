#pragma once
// core::FileSource (core/file_source.h) for the layers that open files by path below io (inference's checkpoint
// readers and a training run's writers), so that what Delineate keeps sealed at rest reads as its content there too:
// - reading: through RandomAccessFile (io/base/regular_file.h): a regular file only (a pipe or a folder is refused by
//   name, never opened blocking), a sealed file decrypted one 64 KiB chunk at a time as it is read and sought, never
//   whole in memory (VISTA-3D's weights are 830 MB); a plain file read as it is;
// - writing (a training run's checkpoints, optimizer state and sidecars), as `outputs` says:
//   - Sealed: owner-only (0600, whatever the umask), sealed with this user's at-rest key unless sealing is off
//     ($DELINEATE_AT_REST=plain), as FileAccess::Sealed files are: a run folder of Delineate's own (the window's);
//   - Personal: plain files PyTorch and MONAI load, 0640 narrowed by the umask (FileAccess::Personal): a folder the
//     user chose.
// Programs install it at start-up: core::setFileSource(io::atRestFileSource(...)).

#include <istream>
#include <memory>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/file_source.h"

namespace delineate::io {

enum class OutputFiles { Sealed, Personal };
std::shared_ptr<const core::FileSource> atRestFileSource(OutputFiles outputs = OutputFiles::Personal);

// The content of the regular file at `path` as a seekable stream (a sealed file decrypted as it is read). Errors as
// RandomAccessFile::open, naming `path`. A chunk that fails its check part way sets the stream's badbit.
core::Result<std::unique_ptr<std::istream>> openContentStream(const std::string& path, std::string_view what);

}  // namespace delineate::io

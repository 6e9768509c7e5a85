// JPEG 2000 frames through OpenJPEG (DCMTK 3.6.7 has no JPEG 2000 decoder), decoded from memory.
#include <algorithm>
#include <cstring>
#include <memory>

#include <openjpeg.h>

#include "io/dicom/dicom_internal.h"

namespace delineate::io::dicom_detail {
namespace {

struct MemoryStream {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t pos;
};

OPJ_SIZE_T readFn(void* buffer, OPJ_SIZE_T n, void* user) {
  auto* m = static_cast<MemoryStream*>(user);
  if (m->pos >= m->size) return OPJ_SIZE_T(-1);
  const std::size_t take = std::min<std::size_t>(n, m->size - m->pos);
  std::memcpy(buffer, m->data + m->pos, take);
  m->pos += take;
  return take;
}
OPJ_OFF_T skipFn(OPJ_OFF_T n, void* user) {
  auto* m = static_cast<MemoryStream*>(user);
  const auto target = std::clamp<OPJ_OFF_T>(OPJ_OFF_T(m->pos) + n, 0, OPJ_OFF_T(m->size));
  const OPJ_OFF_T moved = target - OPJ_OFF_T(m->pos);
  m->pos = std::size_t(target);
  return moved;
}
OPJ_BOOL seekFn(OPJ_OFF_T n, void* user) {
  auto* m = static_cast<MemoryStream*>(user);
  if (n < 0 || std::size_t(n) > m->size) return OPJ_FALSE;
  m->pos = std::size_t(n);
  return OPJ_TRUE;
}

struct CodecDeleter {
  void operator()(opj_codec_t* c) const { opj_destroy_codec(c); }
};
struct StreamDeleter {
  void operator()(opj_stream_t* s) const { opj_stream_destroy(s); }
};
struct ImageDeleter {
  void operator()(opj_image_t* i) const { opj_image_destroy(i); }
};

void quiet(const char*, void*) {}
void collect(const char* msg, void* user) {
  auto* s = static_cast<std::string*>(user);
  if (s->size() < 300) *s += msg;
}

}  // namespace

core::Status decodeJpeg2000(const std::string& path, const std::uint8_t* data, std::size_t size, int rows,
                            int columns, int maxPrecision, std::int32_t* out) {
  using core::ErrorCode;
  using core::makeError;
  if (size < 12) return makeError(ErrorCode::Corrupt, path, "JPEG 2000 frame of " + std::to_string(size) + " bytes");
  // A raw code stream starts with SOC + SIZ (FF4F FF51); a JP2 file with its signature box.
  OPJ_CODEC_FORMAT kind;
  if (data[0] == 0xFF && data[1] == 0x4F) kind = OPJ_CODEC_J2K;
  else if (std::memcmp(data + 4, "jP  ", 4) == 0) kind = OPJ_CODEC_JP2;
  else return makeError(ErrorCode::Corrupt, path, "pixel data fragment is not a JPEG 2000 code stream");

  std::unique_ptr<opj_codec_t, CodecDeleter> codec(opj_create_decompress(kind));
  if (!codec) return makeError(ErrorCode::OutOfMemory, path, "OpenJPEG decoder unavailable");
  std::string errors;
  opj_set_info_handler(codec.get(), quiet, nullptr);
  opj_set_warning_handler(codec.get(), quiet, nullptr);
  opj_set_error_handler(codec.get(), collect, &errors);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  if (!opj_setup_decoder(codec.get(), &params)) return makeError(ErrorCode::Corrupt, path, "OpenJPEG setup failed");

  MemoryStream mem{data, size, 0};
  std::unique_ptr<opj_stream_t, StreamDeleter> stream(opj_stream_create(64 * 1024, OPJ_TRUE));
  opj_stream_set_user_data(stream.get(), &mem, nullptr);
  opj_stream_set_user_data_length(stream.get(), size);
  opj_stream_set_read_function(stream.get(), readFn);
  opj_stream_set_skip_function(stream.get(), skipFn);
  opj_stream_set_seek_function(stream.get(), seekFn);

  opj_image_t* raw = nullptr;
  if (!opj_read_header(stream.get(), codec.get(), &raw))
    return makeError(ErrorCode::Corrupt, path, "damaged JPEG 2000 header" + (errors.empty() ? "" : ": " + errors));
  std::unique_ptr<opj_image_t, ImageDeleter> image(raw);
  // One grey component at full resolution, no deeper than BitsAllocated: anything else does not belong to a
  // SamplesPerPixel = 1 image, and decoding it anyway could cost gigabytes (up to 16384 components).
  if (image->numcomps != 1)
    return makeError(ErrorCode::Corrupt, path,
                     "JPEG 2000 frame holds " + std::to_string(image->numcomps) + " components, the image has 1 sample");
  const opj_image_comp_t& c0 = image->comps[0];
  if (c0.dx != 1 || c0.dy != 1)
    return makeError(ErrorCode::Corrupt, path, "JPEG 2000 component is subsampled");
  if (c0.prec < 1 || int(c0.prec) > maxPrecision)
    return makeError(ErrorCode::Corrupt, path,
                     "JPEG 2000 component has " + std::to_string(c0.prec) + " bits, more than BitsAllocated " +
                         std::to_string(maxPrecision));
  // Check the declared size against the DICOM header before OpenJPEG allocates the image.
  const auto w = image->x1 - image->x0, h = image->y1 - image->y0;
  if (int(w) != columns || int(h) != rows)
    return makeError(ErrorCode::Corrupt, path,
                     "JPEG 2000 frame is " + std::to_string(w) + " x " + std::to_string(h) + ", the DICOM header says " +
                         std::to_string(columns) + " x " + std::to_string(rows));
  if (!opj_decode(codec.get(), stream.get(), image.get()) || !opj_end_decompress(codec.get(), stream.get()))
    return makeError(ErrorCode::Corrupt, path, "damaged JPEG 2000 data" + (errors.empty() ? "" : ": " + errors));
  const opj_image_comp_t& c = image->comps[0];
  if (!c.data || int(c.w) != columns || int(c.h) != rows || c.factor != 0)
    return makeError(ErrorCode::Corrupt, path, "JPEG 2000 component does not match the frame size");
  std::memcpy(out, c.data, std::size_t(rows) * std::size_t(columns) * sizeof(std::int32_t));
  return core::Status::success();
}

}  // namespace delineate::io::dicom_detail

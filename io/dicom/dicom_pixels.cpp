// Pixel data: frame decoding (DCMTK for native, deflate, RLE, JPEG and JPEG-LS; OpenJPEG for JPEG 2000) and the
// parallel series loader.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <type_traits>
#include <mutex>

#include <unistd.h>
#include <zlib.h>

#include <cerrno>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcuid.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfcache.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcpixel.h>
#include <dcmtk/dcmdata/dcpixseq.h>
#include <dcmtk/dcmdata/dcpxitem.h>
#include <dcmtk/dcmdata/dcxfer.h>
#include <dcmtk/dcmjpeg/djdecode.h>
#include <dcmtk/dcmjpls/djdecode.h>
#include <dcmtk/oflog/oflog.h>

#include "io/dicom/dicom_internal.h"
#include "io/base/regular_file.h"

namespace delineate::io {
namespace dicom_detail {
namespace {

using core::ErrorCode;
using core::makeError;

// Extracts the stored bits of each sample (HighBit/BitsStored) and sign-extends them. The common layouts (all bits
// stored, or low bits stored) take loops the compiler vectorises.
template <class Raw>
void extractSamples(const Raw* raw, std::size_t n, const DicomPixelFormat& f, std::int32_t* out) {
  constexpr int rawBits = int(8 * sizeof(Raw));
  const int shift = f.highBit + 1 - f.bitsStored;
  const bool isSigned = f.pixelRepresentation == 1;
  if (shift == 0 && f.bitsStored == rawBits) {
    using Signed = std::make_signed_t<Raw>;
    if (isSigned) {
      for (std::size_t i = 0; i < n; ++i) out[i] = std::int32_t(Signed(raw[i]));
    } else if constexpr (rawBits < 32) {
      for (std::size_t i = 0; i < n; ++i) out[i] = std::int32_t(raw[i]);
    } else {  // unsigned 32-bit values above INT32_MAX saturate (no real scanner stores them)
      for (std::size_t i = 0; i < n; ++i)
        out[i] = std::int32_t(std::min<std::uint32_t>(std::uint32_t(raw[i]), 0x7FFFFFFFu));
    }
    return;
  }
  if (f.bitsStored < 32) {
    const std::uint32_t mask = (std::uint32_t(1) << f.bitsStored) - 1;
    const std::int32_t sign = isSigned ? std::int32_t(1) << (f.bitsStored - 1) : 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int32_t v = std::int32_t((std::uint32_t(raw[i]) >> shift) & mask);
      out[i] = (v ^ sign) - sign;  // sign extension from bit bitsStored-1 (a no-op when unsigned)
    }
    return;
  }
  for (std::size_t i = 0; i < n; ++i) out[i] = std::int32_t(std::uint32_t(raw[i]));  // 32 stored bits, signed
}

// The fragments of encapsulated pixel data, gathered once per file, and which of them make up each frame.
class FragmentTable {
 public:
  core::Status build(const std::string& path, DcmPixelSequence* seq, int frames) {
    const unsigned long items = seq->card();
    if (items < 2) return makeError(ErrorCode::Corrupt, path, "encapsulated pixel data holds no fragment");
    std::vector<std::pair<const Uint8*, Uint32>> all;
    all.reserve(items);
    for (unsigned long i = 0; i < items; ++i) {  // sequential access: DCMTK's list walks forward from its cursor
      DcmPixelItem* item = nullptr;
      if (seq->getItem(item, i).bad() || !item) return makeError(ErrorCode::Corrupt, path, "missing pixel data fragment");
      Uint8* data = nullptr;
      const Uint32 len = item->getLength();
      if (len > 0 && (item->getUint8Array(data).bad() || !data))
        return makeError(ErrorCode::Corrupt, path, "cannot read pixel data fragment " + std::to_string(i));
      all.emplace_back(data, len);
    }
    m_fragments.assign(all.begin() + 1, all.end());  // item 0 is the basic offset table
    const std::size_t fragments = m_fragments.size();
    m_first.assign(std::size_t(frames) + 1, 0);
    if (frames == 1) {
      m_first = {0, fragments};
    } else if (fragments == std::size_t(frames)) {
      for (std::size_t f = 0; f <= std::size_t(frames); ++f) m_first[f] = f;
    } else {
      // Several fragments per frame: the basic offset table says where each frame starts.
      const auto& [bot, botLen] = all[0];
      if (std::uint64_t(botLen) < 4ull * std::uint64_t(frames))
        return makeError(ErrorCode::Unsupported, path,
                         "multi-frame encapsulated pixel data with several fragments per frame and no basic offset "
                         "table");
      std::vector<std::uint64_t> starts;
      std::uint64_t at = 0;
      for (const auto& fr : m_fragments) {
        starts.push_back(at);
        at += 8 + std::uint64_t(fr.second);
      }
      for (std::size_t f = 0; f < std::size_t(frames); ++f) {
        const std::uint32_t off = std::uint32_t(bot[4 * f]) | std::uint32_t(bot[4 * f + 1]) << 8 |
                                  std::uint32_t(bot[4 * f + 2]) << 16 | std::uint32_t(bot[4 * f + 3]) << 24;
        const auto it = std::lower_bound(starts.begin(), starts.end(), std::uint64_t(off));
        if (it == starts.end() || *it != off || (f > 0 && std::size_t(it - starts.begin()) <= m_first[f - 1]))
          return makeError(ErrorCode::Corrupt, path, "basic offset table entry does not point at a fragment");
        m_first[f] = std::size_t(it - starts.begin());
      }
      m_first[std::size_t(frames)] = fragments;
    }
    return core::Status::success();
  }

  // The concatenated fragments of `frame`.
  void frame(int frame, std::vector<std::uint8_t>& out) const {
    out.clear();
    for (std::size_t i = m_first[std::size_t(frame)]; i < m_first[std::size_t(frame) + 1]; ++i)
      out.insert(out.end(), m_fragments[i].first, m_fragments[i].first + m_fragments[i].second);
  }

 private:
  std::vector<std::pair<const Uint8*, Uint32>> m_fragments;
  std::vector<std::size_t> m_first;
};

}  // namespace

void ensureDcmtkReady() {
  static std::once_flag once;
  std::call_once(once, [] {
    OFLog::configure(OFLogger::FATAL_LOG_LEVEL);
    // An element of a known tag that a file stored with VR UN (as many real files do, after passing through a system
    // that did not know the tag) is read with its dictionary VR: a Frame of Reference UID stored as UN is a UID to the
    // series index and to de-identification alike.
    dcmEnableUnknownVRConversion.set(OFTrue);
    DJDecoderRegistration::registerCodecs();
    DJLSDecoderRegistration::registerCodecs();
    // Deregistered at exit, before DCMTK's own static codec list goes: otherwise its entries outlive the list and
    // LeakSanitizer reports them (seen in the window's tests, which load DICOM series and SEGs).
    std::atexit([] {
      DJLSDecoderRegistration::cleanup();
      DJDecoderRegistration::cleanup();
    });
  });
}

std::string decimalString(double v, int maxPrecision, double zeroBelow) {
  if (std::abs(v) < zeroBelow) v = 0;
  char buf[64];
  for (int precision = maxPrecision; precision > 0; --precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::string(buf).size() <= 16) return buf;
  }
  return "0";
}

std::string truncateUtf8(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

std::string newUid() {
  char buf[100];
  dcmGenerateUniqueIdentifier(buf, SITE_INSTANCE_UID_ROOT);
  return buf;
}

std::string textOf(DcmItem* item, const DcmTagKey& key) {
  OFString v;
  if (item != nullptr && item->findAndGetOFStringArray(key, v).good()) return v.c_str();
  return {};
}

core::CodedConcept codeOf(DcmItem* parent, const DcmTagKey& sequence) {
  DcmItem* it = nullptr;
  if (parent == nullptr || parent->findAndGetSequenceItem(sequence, it, 0).bad() || it == nullptr) return {};
  core::CodedConcept c;
  c.value = textOf(it, DCM_CodeValue);
  if (c.value.empty()) c.value = textOf(it, DCM_LongCodeValue);
  if (c.value.empty()) c.value = textOf(it, DCM_URNCodeValue);
  c.scheme = textOf(it, DCM_CodingSchemeDesignator);
  c.meaning = textOf(it, DCM_CodeMeaning);
  return c;
}

namespace {

// Unpacks 1-bit samples (least significant bit first) starting at bit `firstBit`.
void unpackBits(const std::uint8_t* bytes, std::uint64_t firstBit, std::size_t n, std::int32_t* out) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t b = firstBit + i;
    out[i] = (bytes[b >> 3] >> (b & 7)) & 1;
  }
}

// Little-endian native frame bytes -> samples (for decoders that produce byte streams).
void samplesFromBytes(const std::uint8_t* bytes, std::size_t samples, const DicomPixelFormat& f, std::int32_t* out) {
  if (f.bitsAllocated == 1) {
    unpackBits(bytes, 0, samples, out);
  } else if (f.bitsAllocated == 8) {
    extractSamples(bytes, samples, f, out);
  } else if (f.bitsAllocated == 16) {
    thread_local std::vector<std::uint16_t> v;
    v.resize(samples);
    for (std::size_t k = 0; k < samples; ++k) v[k] = std::uint16_t(bytes[2 * k] | bytes[2 * k + 1] << 8);
    extractSamples(v.data(), samples, f, out);
  } else {
    thread_local std::vector<std::uint32_t> v;
    v.resize(samples);
    for (std::size_t k = 0; k < samples; ++k)
      v[k] = std::uint32_t(bytes[4 * k]) | std::uint32_t(bytes[4 * k + 1]) << 8 | std::uint32_t(bytes[4 * k + 2]) << 16 |
             std::uint32_t(bytes[4 * k + 3]) << 24;
    extractSamples(v.data(), samples, f, out);
  }
}

// DICOM RLE (PS3.5 Annex G), our own: DCMTK's decoder refuses 1-bit frames and crashes on crafted segment offsets.
// A frame holds `segments` PackBits segments (one per byte of a sample, most significant first); each must decode to
// exactly `bytesPerSegment` bytes, written to out[s * bytesPerSegment ...]. Every offset and run is checked.
core::Status decodeRle(const std::string& path, const std::vector<std::uint8_t>& frame, std::uint32_t segments,
                       std::size_t bytesPerSegment, std::uint8_t* out) {
  if (frame.size() < 64) return makeError(ErrorCode::Corrupt, path, "RLE frame shorter than its 64-byte header");
  auto u32 = [&](std::size_t at) {
    return std::uint32_t(frame[at]) | std::uint32_t(frame[at + 1]) << 8 | std::uint32_t(frame[at + 2]) << 16 |
           std::uint32_t(frame[at + 3]) << 24;
  };
  if (u32(0) != segments)
    return makeError(ErrorCode::Corrupt, path,
                     "RLE frame holds " + std::to_string(u32(0)) + " segments, the pixel format needs " +
                         std::to_string(segments));
  for (std::uint32_t seg = 0; seg < segments; ++seg) {
    const std::size_t begin = u32(4 + 4 * seg);
    const std::size_t end = seg + 1 < segments ? u32(8 + 4 * seg) : frame.size();
    if (begin < 64 || begin > end || end > frame.size())
      return makeError(ErrorCode::Corrupt, path, "RLE segment offsets point outside the frame");
    std::uint8_t* dst = out + std::size_t(seg) * bytesPerSegment;
    std::size_t in = begin, o = 0;
    while (o < bytesPerSegment && in < end) {
      const int n = static_cast<std::int8_t>(frame[in++]);
      if (n >= 0) {
        const std::size_t count = std::size_t(n) + 1;
        if (in + count > end || o + count > bytesPerSegment)
          return makeError(ErrorCode::Corrupt, path, "RLE literal run overruns its segment");
        std::memcpy(dst + o, frame.data() + in, count);
        in += count;
        o += count;
      } else if (n != -128) {
        const std::size_t count = std::size_t(1 - n);
        if (in >= end || o + count > bytesPerSegment)
          return makeError(ErrorCode::Corrupt, path, "RLE replicate run overruns its segment");
        std::memset(dst + o, frame[in++], count);
        o += count;
      }
    }
    if (o < bytesPerSegment)
      return makeError(ErrorCode::Corrupt, path, "RLE segment decodes to fewer bytes than the frame needs (truncated)");
  }
  return core::Status::success();
}

// Deflated Image Frame Compression (1.2.840.10008.1.2.8.1, newer than DCMTK 3.6.7): each frame is one raw deflate
// stream (RFC 1951) of the native frame bytes. Inflation stops at the frame size.
core::Status inflateFrame(const std::string& path, const std::vector<std::uint8_t>& in, std::size_t bytesOut,
                          std::uint8_t* out) {
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return makeError(ErrorCode::OutOfMemory, path, "zlib init failed");
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = uInt(in.size());
  zs.next_out = out;
  zs.avail_out = uInt(bytesOut);
  const int rc = inflate(&zs, Z_FINISH);
  const std::size_t produced = bytesOut - zs.avail_out;
  inflateEnd(&zs);
  if ((rc != Z_STREAM_END && rc != Z_BUF_ERROR && rc != Z_OK) || produced < bytesOut)
    return makeError(ErrorCode::Corrupt, path,
                     "deflated frame inflates to " + std::to_string(produced) + " of " + std::to_string(bytesOut) +
                         " bytes (damaged)");
  return core::Status::success();
}

std::string changedSinceIndexed(const DicomPixelFormat& f, int rows, int columns, int bitsAllocated, int bitsStored,
                                int highBit, int pixelRepresentation) {
  if (rows != f.rows || columns != f.columns || bitsAllocated != f.bitsAllocated ||
      (bitsStored >= 0 && bitsStored != f.bitsStored) || (highBit >= 0 && highBit != f.highBit) ||
      (pixelRepresentation >= 0 && pixelRepresentation != f.pixelRepresentation))
    return "the file's rows, columns or bit layout differ from its series (changed since the folder was indexed?)";
  return {};
}

core::Status decodeDataset(const std::string& path, DcmDataset* ds, const DicomPixelFormat& format,
                           const std::vector<int>& frameNumbers, const FrameSink& deliver) {
  Uint16 rows = 0, cols = 0, bits = 0, stored = 0, high = 0, representation = 0;
  ds->findAndGetUint16(DCM_Rows, rows);
  ds->findAndGetUint16(DCM_Columns, cols);
  ds->findAndGetUint16(DCM_BitsAllocated, bits);
  const int bitsStored = ds->findAndGetUint16(DCM_BitsStored, stored).good() ? int(stored) : -1;
  const int highBit = ds->findAndGetUint16(DCM_HighBit, high).good() ? int(high) : -1;
  const int pixelRep = ds->findAndGetUint16(DCM_PixelRepresentation, representation).good() ? int(representation) : -1;
  Sint32 numberOfFrames = 1;
  if (ds->findAndGetSint32(DCM_NumberOfFrames, numberOfFrames).bad()) numberOfFrames = 1;
  const std::string changed = changedSinceIndexed(format, rows, cols, bits, bitsStored, highBit, pixelRep);
  if (!changed.empty()) return makeError(ErrorCode::Corrupt, path, changed);
  if (format.samplesPerPixel != 1)
    return makeError(ErrorCode::Unsupported, path,
                     "colour image (SamplesPerPixel " + std::to_string(format.samplesPerPixel) +
                         ", " + format.photometric + "): only monochrome images load as volumes");
  for (int f : frameNumbers)
    if (f < 0 || f >= numberOfFrames)
      return makeError(ErrorCode::Corrupt, path, "frame " + std::to_string(f) + " does not exist");
  DcmElement* element = nullptr;
  if (ds->findAndGetElement(DCM_PixelData, element).bad() || !element)
    return makeError(ErrorCode::Corrupt, path, "no pixel data");
  auto* pixelData = OFstatic_cast(DcmPixelData*, element);
  const std::size_t samples = std::size_t(rows) * cols;
  const std::size_t bytes = std::size_t(std::max(1, format.bitsAllocated / 8));
  const std::size_t frameBytes = format.bitsAllocated == 1 ? (samples + 7) / 8 : samples * bytes;
  const E_TransferSyntax xfer = ds->getOriginalXfer();
  const DcmXfer x(xfer);
  const std::string& ts = format.transferSyntaxUid;
  thread_local std::vector<std::int32_t> frame;
  frame.resize(samples);

  // Our own decoders for encapsulated syntaxes: JPEG 2000 (OpenJPEG), RLE, deflated frames.
  const bool j2k = isJpeg2000Syntax(ts), rle = ts == "1.2.840.10008.1.2.5", deflated = ts == "1.2.840.10008.1.2.8.1";
  if (j2k || rle || deflated) {
    DcmPixelSequence* seq = nullptr;
    if (pixelData->getEncapsulatedRepresentation(xfer, nullptr, seq).bad() || !seq)
      return makeError(ErrorCode::Corrupt, path, std::string(x.getXferName()) + " pixel data is not encapsulated");
    FragmentTable table;
    if (core::Status s = table.build(path, seq, int(numberOfFrames)); !s) return s;
    std::vector<std::uint8_t> stream, native(j2k ? 0 : frameBytes);
    for (std::size_t i = 0; i < frameNumbers.size(); ++i) {
      table.frame(frameNumbers[i], stream);
      if (j2k) {
        // OpenJPEG returns sample values, signed as the code stream says (as GDCM does); no bit extraction.
        if (core::Status s = decodeJpeg2000(path, stream.data(), stream.size(), rows, cols,
                                            std::max(1, format.bitsAllocated), frame.data());
            !s)
          return s;
      } else if (deflated) {
        if (core::Status s = inflateFrame(path, stream, frameBytes, native.data()); !s) return s;
        samplesFromBytes(native.data(), samples, format, frame.data());
      } else if (format.bitsAllocated == 1) {
        if (core::Status s = decodeRle(path, stream, 1, frameBytes, native.data()); !s) return s;
        unpackBits(native.data(), 0, samples, frame.data());
      } else {
        std::vector<std::uint8_t> planes(samples * bytes);
        if (core::Status s = decodeRle(path, stream, std::uint32_t(bytes), samples, planes.data()); !s) return s;
        for (std::size_t k = 0; k < samples; ++k)  // segment 0 holds the most significant bytes -> little endian
          for (std::size_t b = 0; b < bytes; ++b) native[k * bytes + b] = planes[(bytes - 1 - b) * samples + k];
        samplesFromBytes(native.data(), samples, format, frame.data());
      }
      deliver(i, frame.data());
    }
    return core::Status::success();
  }

  if (format.bitsAllocated == 1) {
    if (x.isEncapsulated())
      return makeError(ErrorCode::Unsupported, path, std::string("1-bit pixel data in ") + x.getXferName());
    // Native 1-bit frames follow each other bit by bit: frame f starts at bit f x rows x columns.
    Uint8* packedBits = nullptr;
    if (pixelData->getUint8Array(packedBits).bad() || !packedBits)
      return makeError(ErrorCode::Corrupt, path, "cannot read the pixel data");
    const std::uint64_t haveBits = std::uint64_t(pixelData->getLength()) * 8;
    for (std::size_t i = 0; i < frameNumbers.size(); ++i) {
      const std::uint64_t first = std::uint64_t(frameNumbers[i]) * samples;
      if (first + samples > haveBits)
        return makeError(ErrorCode::Corrupt, path,
                         "1-bit pixel data too short for frame " + std::to_string(frameNumbers[i]));
      unpackBits(packedBits, first, samples, frame.data());
      deliver(i, frame.data());
    }
    return core::Status::success();
  }

  // Everything else through DCMTK: native data in unusual layouts, deflated datasets, JPEG and JPEG-LS.
  Uint32 frameSize = 0;
  if (pixelData->getUncompressedFrameSize(ds, frameSize).bad() || frameSize < frameBytes)
    return makeError(ErrorCode::Corrupt, path, "cannot determine the frame size");
  std::vector<std::uint8_t> buffer(std::size_t(frameSize) + 2);
  DcmFileCache cache;
  Uint32 startFragment = 0;
  for (std::size_t i = 0; i < frameNumbers.size(); ++i) {
    OFString colourModel;
    if (i == 0 || frameNumbers[i] != frameNumbers[i - 1] + 1) startFragment = 0;
    const OFCondition c = pixelData->getUncompressedFrame(ds, Uint32(frameNumbers[i]), startFragment, buffer.data(),
                                                          Uint32(buffer.size()), colourModel, &cache);
    if (c.bad()) {
      std::string why = c.text();
      if (x.isEncapsulated() && why.find("codec") != std::string::npos)
        why = std::string("no decoder for transfer syntax ") + x.getXferName();
      return makeError(ErrorCode::Corrupt, path,
                       "cannot decode frame " + std::to_string(frameNumbers[i]) + " (" + x.getXferName() + "): " + why);
    }
    // DCMTK hands frames over in this machine's byte order (little endian here).
    samplesFromBytes(buffer.data(), samples, format, frame.data());
    deliver(i, frame.data());
  }
  return core::Status::success();
}

template <class Raw>
core::Status readNativeFrames(const std::string& path, RandomAccessFile& file, const PrescanResult& pre, const DicomPixelFormat& format,
                              const std::vector<int>& frameNumbers, const FrameSink& deliver) {
  const std::size_t samples = std::size_t(format.rows) * std::size_t(format.columns);
  const std::int64_t frameBytes = std::int64_t(samples * sizeof(Raw));
  thread_local std::vector<Raw> raw;
  thread_local std::vector<std::int32_t> frame;
  raw.resize(samples);
  frame.resize(samples);
  for (std::size_t i = 0; i < frameNumbers.size(); ++i) {
    const std::int64_t start = std::int64_t(frameNumbers[i]) * frameBytes;
    if (frameNumbers[i] < 0 || start + frameBytes > pre.pixelDataLength)
      return makeError(ErrorCode::Corrupt, path,
                       "pixel data holds " + std::to_string(pre.pixelDataLength) + " bytes, too few for frame " +
                           std::to_string(frameNumbers[i]) + " (truncated or damaged)");
    auto got = file.readAt(std::uint64_t(pre.pixelDataOffset + start), raw.data(), std::size_t(frameBytes));
    if (!got) return got.error();
    if (std::int64_t(*got) != frameBytes)
      return makeError(ErrorCode::ReadFailed, path, "reading the pixel data failed: file shrank");
    if (pre.bigEndian && sizeof(Raw) > 1)
      for (std::size_t k = 0; k < samples; ++k) {
        Raw v = raw[k], swapped = 0;
        for (std::size_t b = 0; b < sizeof(Raw); ++b) swapped = Raw(swapped << 8 | ((v >> (8 * b)) & 0xFF));
        raw[k] = swapped;
      }
    extractSamples(raw.data(), samples, format, frame.data());
    deliver(i, frame.data());
  }
  return core::Status::success();
}

}  // namespace

core::Status decodeFrames(const std::string& path, const DicomPixelFormat& format, const std::vector<int>& frameNumbers,
                          const FrameSink& deliver) {
  ensureDcmtkReady();
  // Uncompressed pixels: our own pre-scan located them, so one open and one read per frame, without DCMTK.
  if (isNativeSyntax(format.transferSyntaxUid) && format.samplesPerPixel == 1 &&
      (format.bitsAllocated == 16 || format.bitsAllocated == 32 || format.bitsAllocated == 8)) {
    bool fallBack = false;
    core::Status s = prescanDicomFile(path, [&](RandomAccessFile& file, const PrescanResult& pre) -> core::Status {
      const std::string changed = changedSinceIndexed(format, pre.rows, pre.columns, pre.bitsAllocated, pre.bitsStored,
                                                      pre.highBit, pre.pixelRepresentation);
      if (!changed.empty()) return makeError(ErrorCode::Corrupt, path, changed);
      if (pre.pixelDataOffset < 0 || pre.pixelDataEncapsulated || (pre.bigEndian && format.bitsAllocated == 8)) {
        fallBack = true;  // unusual layouts go through DCMTK
        return core::Status::success();
      }
      switch (format.bitsAllocated) {
        case 8: return readNativeFrames<std::uint8_t>(path, file, pre, format, frameNumbers, deliver);
        case 16: return readNativeFrames<std::uint16_t>(path, file, pre, format, frameNumbers, deliver);
        default: return readNativeFrames<std::uint32_t>(path, file, pre, format, frameNumbers, deliver);
      }
    });
    if (!s || !fallBack) return s;
  }
  // The file may have changed since it was indexed: check its structure again before DCMTK parses it.
  auto pre = prescanDicomFile(path);
  if (!pre) return pre.error();
  auto readable = ReadableFile::open(path, "DICOM file");  // a sealed cache file: its content (io/base/sealed_file.h)
  if (!readable) return readable.error();
  DcmFileFormat ff;
  const OFCondition c = ff.loadFile(OFFilename(readable->path().c_str()), EXS_Unknown, EGL_noChange,
                                    readable->sealed() ? 0xFFFFFFFFu : maxReadLength(*pre), ERM_autoDetect);
  if (c.bad()) return makeError(ErrorCode::ParseError, path, std::string("DCMTK cannot parse the file: ") + c.text());
  return decodeDataset(path, ff.getDataset(), format, frameNumbers, deliver);
}

}  // namespace dicom_detail

namespace {

// The refusals every load of a series makes before decoding (what it is, its grid, its unreadable files); fills the
// issues and flags of `out`.
core::Status checkLoadable(const DicomSeries& series, const DicomLoadOptions& options, const std::string& subject,
                           std::vector<SeriesIssue>& issues, bool& regular, bool& complete) {
  using core::ErrorCode;
  using core::makeError;
  if (!series.isImage)
    return makeError(ErrorCode::Unsupported, subject,
                     "series " + series.key() + " (" + series.modality + ") holds no image volume");
  if (!series.geometry) {
    std::string why;
    for (const auto& i : series.issues)
      if (i.kind == SeriesIssueKind::MissingGeometry) why = ": " + i.detail;
    return makeError(ErrorCode::InvalidGeometry, subject, "series " + series.key() + " has no valid slice geometry" + why);
  }
  const std::string& photometric = series.format.photometric;
  if (series.format.samplesPerPixel != 1 || (photometric != "MONOCHROME1" && photometric != "MONOCHROME2" &&
                                             !photometric.empty()))
    return makeError(ErrorCode::Unsupported, subject,
                     "colour or palette image (SamplesPerPixel " + std::to_string(series.format.samplesPerPixel) +
                         ", " + photometric + "): only monochrome images load as volumes");
  // Two files claim one instance with different bytes: neither can be taken for it, and no option overrides that
  // (the user removes the wrong file). Named by the file read first.
  if (series.hasConflictingInstances()) {
    const auto first = std::find_if(series.duplicates.begin(), series.duplicates.end(),
                                    [](const DicomDuplicateFile& d) { return !d.identical; });
    return makeError(ErrorCode::Corrupt, first->sameAs,
                     "series " + series.key() + " is refused: " + series.conflictDescription() +
                         " (which file is the instance cannot be told; remove the wrong one)");
  }
  // Checked before the grid: a lost first or last slice leaves a regular grid, and a lost middle slice should be
  // named as the file it is, not as "missing slices" of the series' first file.
  if (!series.unreadable.empty() && !options.allowUnreadable) {
    std::string files;
    for (const DicomSkippedFile& f : series.unreadable) files += (files.empty() ? "" : "; ") + f.reason;
    return makeError(ErrorCode::Corrupt, series.unreadable.front().path,
                     "series " + series.key() + " is incomplete: " + std::to_string(series.unreadable.size()) +
                         " file(s) of it or beside it cannot be read (" + files +
                         "); load the rest with allowUnreadable (CLI: --allow-unreadable)");
  }
  issues = series.issues;
  regular = series.isRegular();
  complete = series.unreadable.empty();
  if (!regular && !options.allowIrregular) {
    std::string what;
    for (const auto& i : series.issues)
      if (breaksRegularGrid(i.kind)) what += std::string(what.empty() ? "" : "; ") + seriesIssueName(i.kind) + ": " + i.detail;
    // Named by its folder: the grid is the series' fault, not that of whichever file sorts first (issue 22).
    if (!series.unreadable.empty())
      what += "; " + std::to_string(series.unreadable.size()) + " unreadable file(s) of the series may be the missing slices";
    return makeError(ErrorCode::InvalidGeometry, series.folder.empty() ? subject : series.folder,
                     "series " + series.key() + " is not a regular grid (" + what +
                         "); load it with allowIrregular (CLI: --allow-irregular) to accept approximate geometry");
  }
  return core::Status::success();
}

// Whether every slice's rescale is a whole-number shift (slope 1, an integer intercept) that cannot overflow int32.
bool integerRescale(const DicomSeries& series) {
  if (series.format.bitsStored > 24) return false;
  for (const DicomSlice& s : series.slices)
    if (!(s.rescaleSlope == 1.0 && s.rescaleIntercept == std::floor(s.rescaleIntercept) && std::abs(s.rescaleIntercept) < 1e6))
      return false;
  return true;
}

// Which slices of the series' grid a file fills (1) and which are missing (0, allowIrregular only).
std::vector<char> filledSlices(const DicomSeries& series) {
  std::vector<char> filled(std::size_t(std::max<std::int64_t>(0, series.geometry->dimensions()[2])), 0);
  for (const DicomSlice& s : series.slices)
    if (s.gridIndex >= 0 && std::size_t(s.gridIndex) < filled.size()) filled[std::size_t(s.gridIndex)] = 1;
  return filled;
}

// The state one load of a series shares across its slabs: progress, and whether a rescaled value fell outside the
// type tried. `subject` names the series in errors (its first file).
struct DecodeRun {
  const DicomSeries& series;
  const DicomLoadOptions& options;
  const std::string& subject;
  std::size_t plane = 0;
  std::int64_t depth = 0;
  std::size_t slicesDone = 0;
  std::atomic<bool> outOfRange{false};

  DecodeRun(const DicomSeries& s, const DicomLoadOptions& o, const std::string& subj) : series(s), options(o), subject(subj) {
    const core::Geometry& g = *s.geometry;
    plane = std::size_t(g.dimensions()[0]) * std::size_t(g.dimensions()[1]);
    depth = g.dimensions()[2];
  }
};

// Slices k0 <= k < k1 of the series decoded and rescaled into `dst` (slice k0 first) as voxels of type T, the files
// read in parallel. An integer T takes only the integer path (integerRescale); a rescaled value outside T's range sets
// run.outOfRange (the caller loads again in a wider type), the voxel clamped.
template <class T>
core::Status decodeSlab(DecodeRun& run, std::int64_t k0, std::int64_t k1, T* dst) {
  using core::ErrorCode;
  using core::makeError;
  const DicomSeries& series = run.series;
  const DicomLoadOptions& options = run.options;
  const std::size_t plane = run.plane;

  // Work per file: (frame, k, slope, intercept) for each slice that lands in the slab.
  struct Job {
    int frame;
    std::int64_t k;
    double slope, intercept;
  };
  std::map<std::string, std::vector<Job>> byFile;
  for (const DicomSlice& s : series.slices) {
    if (s.gridIndex < k0 || s.gridIndex >= k1) continue;
    byFile[s.path].push_back(Job{s.frame, s.gridIndex, s.rescaleSlope, s.rescaleIntercept});
  }
  std::vector<const std::pair<const std::string, std::vector<Job>>*> files;
  for (const auto& entry : byFile) files.push_back(&entry);

  std::mutex mutex;
  std::optional<core::Error> failure;
  const std::size_t slicesTotal = series.slices.size();
  const int threads = dicom_detail::resolveThreads(options.threads);
  const std::string thrown = dicom_detail::parallelFor(files.size(), threads, [&](std::size_t fi, int) {
    if (options.progress && options.progress->cancelled()) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!failure) failure = makeError(ErrorCode::Cancelled, series.key(), "loading cancelled");
      return false;
    }
    const auto& [path, jobs] = *files[fi];
    std::vector<Job> sorted = jobs;
    std::sort(sorted.begin(), sorted.end(), [](const Job& a, const Job& b) { return a.frame < b.frame; });
    std::vector<int> frameNumbers;
    for (const Job& j : sorted) frameNumbers.push_back(j.frame);
    // Each decoded frame goes straight into its slice of the volume (rescaled), so no per-file buffer exists.
    const core::Status s = dicom_detail::decodeFrames(
        path, series.format, frameNumbers, [&](std::size_t j, const std::int32_t* src) {
          T* out = dst + std::size_t(sorted[j].k - k0) * plane;
          const double slope = sorted[j].slope, intercept = sorted[j].intercept;
          if constexpr (std::is_integral_v<T>) {
            // integerRescale held: a whole-number shift of <= 24 stored bits, exact in int32.
            const std::int32_t offset = std::int32_t(intercept), lo = std::numeric_limits<T>::min(),
                               hi = std::numeric_limits<T>::max();
            bool outside = false;
            for (std::size_t v = 0; v < plane; ++v) {
              const std::int32_t x = src[v] + offset;
              outside |= x < lo || x > hi;
              out[v] = T(std::clamp(x, lo, hi));
            }
            if (outside) run.outOfRange.store(true, std::memory_order_relaxed);
          } else if (slope == 1.0 && intercept == std::floor(intercept) && std::abs(intercept) < 1e6 &&
                     series.format.bitsStored <= 24) {  // integer path: no overflow with <= 24 stored bits
            const std::int32_t offset = std::int32_t(intercept);
            for (std::size_t v = 0; v < plane; ++v) out[v] = float(src[v] + offset);
          } else {
            for (std::size_t v = 0; v < plane; ++v) out[v] = float(double(src[v]) * slope + intercept);
          }
        });
    if (!s) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!failure) failure = s.error();
      return false;
    }
    if (options.progress) {
      std::lock_guard<std::mutex> lock(mutex);
      run.slicesDone += sorted.size();
      options.progress->report(double(run.slicesDone) / double(std::max<std::size_t>(1, slicesTotal)), "read");
    }
    return true;
  });
  if (!thrown.empty()) return makeError(ErrorCode::OutOfMemory, run.subject, "loading failed: " + thrown);
  if (failure) return *failure;
  return core::Status::success();
}

// The whole series decoded into voxels of type T (decodeSlab over every slice); `overflow` as run.outOfRange.
template <class T>
core::Result<core::Volume<T>> decodeSeries(const DicomSeries& series, const DicomLoadOptions& options,
                                           const std::string& subject, bool* overflow) {
  using core::ErrorCode;
  using core::makeError;
  const core::Geometry& g = *series.geometry;
  DecodeRun run(series, options, subject);
  typename core::Volume<T>::UninitBuffer data;
  try {
    data.resize(std::size_t(g.voxelCount()));
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, subject,
                     "cannot allocate " + std::to_string(g.voxelCount() * std::int64_t(sizeof(T))) + " bytes for the volume");
  }
  if (core::Status s = decodeSlab<T>(run, 0, run.depth, data.data()); !s) return s.error();
  if (overflow) *overflow = run.outOfRange.load();

  // Missing slices (allowIrregular only): the series' lowest value, so gaps show as gaps.
  const std::size_t plane = run.plane;
  const std::vector<char> filled = filledSlices(series);
  if (std::find(filled.begin(), filled.end(), 0) != filled.end()) {
    T lowest = std::numeric_limits<T>::max();
    for (std::int64_t k = 0; k < run.depth; ++k)
      if (filled[std::size_t(k)])
        for (std::size_t v = 0; v < plane; ++v) lowest = std::min(lowest, data[std::size_t(k) * plane + v]);
    for (std::int64_t k = 0; k < run.depth; ++k)
      if (!filled[std::size_t(k)]) std::fill_n(data.data() + std::size_t(k) * plane, plane, lowest);
  }
  return core::Volume<T>::adopt(g, std::move(data), subject);
}

}  // namespace

core::Result<LoadedDicomSeries> loadDicomSeries(const DicomSeries& series, const DicomLoadOptions& options) {
  const std::string subject = series.slices.empty() ? series.key() : series.slices.front().path;
  LoadedDicomSeries out;
  if (core::Status s = checkLoadable(series, options, subject, out.issues, out.regular, out.complete); !s) return s.error();
  auto volume = decodeSeries<float>(series, options, subject, nullptr);
  if (!volume) return volume.error();
  out.image = std::move(*volume);
  return out;
}

core::ScalarType storedSeriesType(const DicomSeries& series) {
  if (!integerRescale(series)) return core::ScalarType::Float32;
  // The values the stored bits and the intercepts can make (bits beyond 24 were refused by integerRescale).
  const int bits = std::max(1, series.format.bitsStored);
  const bool isSigned = series.format.pixelRepresentation == 1;
  const double storedLo = isSigned ? -std::ldexp(1.0, bits - 1) : 0.0;
  const double storedHi = isSigned ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  double lo = storedLo, hi = storedHi;
  bool first = true;
  for (const DicomSlice& s : series.slices) {
    const double a = storedLo + s.rescaleIntercept, b = storedHi + s.rescaleIntercept;
    lo = first ? a : std::min(lo, a);
    hi = first ? b : std::max(hi, b);
    first = false;
  }
  if (lo >= 0 && hi <= 255) return core::ScalarType::UInt8;
  if (lo >= -32768 && hi <= 32767) return core::ScalarType::Int16;
  if (lo >= 0 && hi <= 65535) return core::ScalarType::UInt16;
  // 16 stored bits shifted by an intercept (a signed CT with -1024) may still hold only int16 values: tried first.
  if (bits <= 16) return core::ScalarType::Int16;
  return core::ScalarType::Int32;
}

namespace {
// The one choice of type for a typed load or stream: `attempt(T{})` in the type storedSeriesType names, and once
// more in int32 when it comes back with `wider` set (a value did not fit the type tried, only possible when the
// declared range did not fit it).
template <class Attempt>
core::Status inSeriesType(const DicomSeries& series, bool& wider, Attempt&& attempt) {
  core::Status s = core::Status::success();
  wider = false;
  switch (storedSeriesType(series)) {
    case core::ScalarType::UInt8: s = attempt(std::uint8_t{}); break;
    case core::ScalarType::Int16: s = attempt(std::int16_t{}); break;
    case core::ScalarType::UInt16: s = attempt(std::uint16_t{}); break;
    case core::ScalarType::Int32: s = attempt(std::int32_t{}); break;
    case core::ScalarType::Float32: s = attempt(float{}); break;
  }
  if (s && wider) {
    wider = false;
    s = attempt(std::int32_t{});
  }
  return s;
}
}  // namespace

core::Result<LoadedTypedDicomSeries> loadDicomSeriesTyped(const DicomSeries& series, const DicomLoadOptions& options) {
  const std::string subject = series.slices.empty() ? series.key() : series.slices.front().path;
  LoadedTypedDicomSeries out;
  if (core::Status s = checkLoadable(series, options, subject, out.issues, out.regular, out.complete); !s) return s.error();
  bool wider = false;  // a value did not fit the type tried
  const core::Status s = inSeriesType(series, wider, [&](auto tag) -> core::Status {
    using T = decltype(tag);
    auto volume = decodeSeries<T>(series, options, subject, &wider);
    if (!volume) return volume.error();
    if (!wider) out.image = core::ScalarImage(std::move(*volume));
    return core::Status::success();
  });
  if (!s) return s.error();
  return out;
}

bool dicomSeriesStreamable(const DicomSeries& series) {
  if (!series.geometry) return false;
  const std::vector<char> filled = filledSlices(series);
  return std::find(filled.begin(), filled.end(), 0) == filled.end();
}

core::Result<DicomStreamResult> streamDicomSeriesTyped(const DicomSeries& series, const DicomLoadOptions& options,
                                                        const DicomSlabSink& sink, std::size_t slabBytes) {
  using core::ErrorCode;
  using core::makeError;
  const std::string subject = series.slices.empty() ? series.key() : series.slices.front().path;
  DicomStreamResult out;
  if (core::Status s = checkLoadable(series, options, subject, out.issues, out.regular, out.complete); !s) return s.error();
  if (!dicomSeriesStreamable(series))
    return makeError(ErrorCode::Unsupported, series.folder.empty() ? subject : series.folder,
                     "series " + series.key() + " has missing slices, which are filled with its lowest value: "
                     "it loads whole, not slab by slab");
  const core::Geometry& g = *series.geometry;
  // A pass over the series in type T; `wider` when a value did not fit it (the pass stops at that slab, and the
  // sink's begin is called again for the pass in int32).
  bool wider = false;
  const core::Status status = inSeriesType(series, wider, [&](auto tag) -> core::Status {
    using T = decltype(tag);
    constexpr core::ScalarType type = core::scalarTypeOf<T>();
    DecodeRun run(series, options, subject);
    const std::int64_t perSlab =
        std::max<std::int64_t>(1, std::int64_t(slabBytes / std::max<std::size_t>(1, run.plane * sizeof(T))));
    std::vector<T> slab;
    try {
      slab.resize(std::size_t(std::min(perSlab, run.depth)) * run.plane);
    } catch (const std::bad_alloc&) {
      return makeError(ErrorCode::OutOfMemory, subject, "cannot allocate a slab of " + std::to_string(perSlab) + " slices");
    }
    if (core::Status s = sink.begin(g, type); !s) return s;
    for (std::int64_t k0 = 0; k0 < run.depth; k0 += perSlab) {
      const std::int64_t k1 = std::min(run.depth, k0 + perSlab);
      if (core::Status s = decodeSlab<T>(run, k0, k1, slab.data()); !s) return s;
      if (run.outOfRange.load()) {
        wider = true;
        return core::Status::success();
      }
      if (core::Status s = sink.slab(k0, k1 - k0, slab.data()); !s) return s;
    }
    out.type = type;
    return core::Status::success();
  });
  if (!status) return status.error();
  return out;
}

}  // namespace delineate::io

namespace delineate::io {

core::Result<DicomFrames> readDicomFrames(const std::string& path) {
  using core::ErrorCode;
  using core::makeError;
  dicom_detail::ensureDcmtkReady();
  auto pre = dicom_detail::prescanDicomFile(path);
  if (!pre) return pre.error();
  if (!pre->pixelDataPresent) return makeError(ErrorCode::Unsupported, path, "no pixel data (7FE0,0010)");
  auto readable = ReadableFile::open(path, "DICOM file");  // a sealed cache file: its content
  if (!readable) return readable.error();
  DcmFileFormat ff;
  const OFCondition c = ff.loadFile(OFFilename(readable->path().c_str()), EXS_Unknown, EGL_noChange,
                                    readable->sealed() ? 0xFFFFFFFFu : dicom_detail::maxReadLength(*pre), ERM_autoDetect);
  if (c.bad()) return makeError(ErrorCode::ParseError, path, std::string("DCMTK cannot parse the file: ") + c.text());
  DcmDataset* ds = ff.getDataset();
  DicomFrames out;
  out.format = dicom_detail::readPixelFormat(ds, *pre);
  auto& f = out.format;
  Sint32 frames = 1;
  if (ds->findAndGetSint32(DCM_NumberOfFrames, frames).bad()) frames = 1;
  if (f.rows <= 0 || f.columns <= 0)
    return makeError(ErrorCode::Corrupt, path, "Rows x Columns is " + std::to_string(f.rows) + " x " + std::to_string(f.columns));
  if (frames <= 0) return makeError(ErrorCode::Corrupt, path, "NumberOfFrames is " + std::to_string(frames));
  if (f.bitsAllocated != 1 && f.bitsAllocated != 8 && f.bitsAllocated != 16 && f.bitsAllocated != 32)
    return makeError(ErrorCode::Unsupported, path, "BitsAllocated " + std::to_string(f.bitsAllocated));
  if (f.bitsStored < 1 || f.bitsStored > f.bitsAllocated || f.highBit >= f.bitsAllocated || f.highBit < f.bitsStored - 1)
    return makeError(ErrorCode::Corrupt, path,
                     "HighBit " + std::to_string(f.highBit) + " / BitsStored " + std::to_string(f.bitsStored) +
                         " impossible with BitsAllocated " + std::to_string(f.bitsAllocated));
  const std::int64_t total = std::int64_t(f.rows) * f.columns * frames;
  if (total > core::Geometry::kMaxVoxels)
    return makeError(ErrorCode::SizeLimit, path, "Rows x Columns x NumberOfFrames exceeds the voxel limit");
  if (!pre->pixelDataEncapsulated && pre->pixelDataOffset >= 0 &&
      pre->pixelDataLength * 8 < total * f.samplesPerPixel * f.bitsAllocated)
    return makeError(ErrorCode::Corrupt, path,
                     "pixel data holds " + std::to_string(pre->pixelDataLength) + " bytes, fewer than Rows x Columns x "
                     "Frames x BitsAllocated need (truncated or damaged)");
  try {
    out.samples.resize(std::size_t(total));
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, path, "cannot allocate the frames");
  }
  std::vector<int> numbers;
  for (int i = 0; i < frames; ++i) numbers.push_back(i);
  const std::size_t plane = std::size_t(f.rows) * std::size_t(f.columns);
  const core::Status decoded =
      dicom_detail::decodeDataset(path, ds, f, numbers, [&](std::size_t i, const std::int32_t* samples) {
        std::copy(samples, samples + plane, out.samples.data() + i * plane);
      });
  if (!decoded) return decoded.error();
  out.frames = frames;
  return out;
}

namespace dicom_detail {

DicomPixelFormat readPixelFormat(DcmDataset* ds, const PrescanResult& pre) {
  DicomPixelFormat f;
  Uint16 v = 0;
  auto u16 = [&](const DcmTagKey& key, int fallback) { return ds->findAndGetUint16(key, v).good() ? int(v) : fallback; };
  f.rows = u16(DCM_Rows, 0);
  f.columns = u16(DCM_Columns, 0);
  f.bitsAllocated = u16(DCM_BitsAllocated, 0);
  f.bitsStored = u16(DCM_BitsStored, f.bitsAllocated);
  f.highBit = u16(DCM_HighBit, f.bitsStored - 1);
  f.pixelRepresentation = u16(DCM_PixelRepresentation, 0);
  f.samplesPerPixel = u16(DCM_SamplesPerPixel, 1);
  OFString text;
  if (ds->findAndGetOFString(DCM_PhotometricInterpretation, text).good()) f.photometric = text.c_str();
  const DcmXfer xfer(ds->getOriginalXfer());
  f.transferSyntaxUid = pre.transferSyntaxUid.empty() ? xfer.getXferID() : pre.transferSyntaxUid;
  f.transferSyntaxName = transferSyntaxName(f.transferSyntaxUid, xfer.getXferName());
  return f;
}

}  // namespace dicom_detail

}  // namespace delineate::io

// export-rtstruct: a label map on a DICOM series -> an RT Structure Set. import-rtstruct: an RT Structure Set -> a
// label map on its series (and one mask per ROI). Conventions: io/dicom/dicom_rtstruct.h.
#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <thread>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/dicom_export.h"
#include "app/cli/input_checks.h"
#include "io/dicom/dicom.h"
#include "io/base/file_modes.h"
#include "io/base/parallel.h"
#include "io/dicom/dicom_rtstruct.h"
#include "io/labels/label_table_io.h"
#include "io/volume/image_file.h"

namespace delineate::app::cli {

int runExportRtStruct(const ExportRtStructOptions& o) {
  io::RtStructWriteOptions options;
  for (const std::string& t : o.types) {
    const auto eq = t.find('=');
    int id = 0;
    try {
      std::size_t used = 0;
      id = eq == std::string::npos ? -1 : std::stoi(t.substr(0, eq), &used);
      if (used != eq) id = -1;
    } catch (const std::exception&) {
      id = -1;
    }
    if (id < 1 || id > 65535 || eq + 1 >= t.size())
      return usageError("export-rtstruct", "--type takes LABEL=TYPE (a label id 1..65535 and an RT ROI Interpreted Type), not '" + t + "'");
    options.interpretedTypes[core::Label(id)] = t.substr(eq + 1);
  }
  // Names and colours: --table, else the table beside the label map (what import-rtstruct and segment write).
  LabelsOnSeries in;
  if (int code = readLabelsOnSeries(o.dicom, o.series, o.labels, o.table, true, in); code != 0) return code;
  options.deidentify = o.deidentify;
  options.author = o.author;
  if (!o.label.empty()) options.structureSetLabel = o.label;
  io::RtStructWriteInfo info;
  if (core::Status s = io::writeRtStruct(o.output, in.labels, in.table, *in.series, options, &info); !s)
    return fileError(s.error());
  std::printf("wrote %s (RT Structure Set, %zu ROIs, %zu contours, %lld points, referencing series %s)\n",
              o.output.c_str(), info.rois, info.contours, static_cast<long long>(info.points), in.series->key().c_str());
  if (o.deidentify && !o.author.empty())
    std::fprintf(stderr, "note: the author \"%s\" is not in %s: a de-identified structure set names no person\n",
                 o.author.c_str(), o.output.c_str());
  return 0;
}

int runImportRtStruct(const ImportRtStructOptions& o) {
  auto index = io::indexDicomFolder(o.dicom);
  if (!index) return fileError(index.error());
  const io::DicomSeries* series = nullptr;
  if (int code = chooseImageSeries(*index, o.dicom, o.series, series); code != 0) return code;
  if (!series->geometry || !series->isRegular())
    return fileError(core::makeError(core::ErrorCode::Unsupported, o.dicom,
                                     "series " + series->key() + " is not a regular image grid"));
  io::RtStructReadOptions options;
  options.referenceFrameOfReferenceUid = series->frameOfReferenceUid;
  options.referenceSeriesUid = series->seriesInstanceUid;
  auto doc = io::readRtStruct(o.rtstruct, *series->geometry, options);
  if (!doc) return fileError(doc.error());
  io::RtFlattenReport report;
  auto flat = io::rtStructToLabelMap(*doc, &report);
  if (!flat) return fileError(flat.error());
  if (core::Status s = io::writeLabelFile(o.output, flat->first); !s) return fileError(s.error());
  auto beside = io::writeLabelTableBeside(o.output, flat->second, "import-rtstruct");
  if (!beside) std::fprintf(stderr, "warning: %s\n", beside.error().describe().c_str());
  // Each ROI's own mask (overlaps kept), named by ROI number: names in a structure set are free text.
  if (!o.masks.empty()) {
    // Patient data at a path the user chose: its new folders are never readable by others (io/base/file_modes.h).
    if (core::Status s = io::createFolders(o.masks, io::FileAccess::Personal); !s) return fileError(s.error());
    // uint8 masks (half the bytes of a label map to compress), on every core.
    const auto& dims = doc->grid.dimensions();
    std::vector<std::string> errors(doc->masks.size());
    // A whole-grid mask per worker: as many workers as cores, and as 2 GB of masks allow.
    const std::int64_t perMask = std::max<std::int64_t>(1, std::int64_t(doc->grid.voxelCount()));
    const int threads = int(std::clamp<std::int64_t>(
        std::min<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()), (std::int64_t(2) << 30) / perMask), 1, 64));
    const std::string failure = io::parallelFor(doc->masks.size(), threads, [&](std::size_t i, int) {
      const io::RtRoiMask& m = doc->masks[i];
      auto v = core::Volume<std::uint8_t>::create(doc->grid, 0, o.masks);
      if (!v) {
        errors[i] = v.error().describe();
        return false;
      }
      std::size_t at = 0;
      for (std::int64_t z = m.box.min[2]; z <= m.box.max[2]; ++z)
        for (std::int64_t y = m.box.min[1]; y <= m.box.max[1]; ++y)
          for (std::int64_t x = m.box.min[0]; x <= m.box.max[0]; ++x, ++at)
            if (m.voxels[at]) v->data()[std::size_t((z * dims[1] + y) * dims[0] + x)] = 1;
      const std::string file = (std::filesystem::path(o.masks) / ("roi-" + std::to_string(m.number) + ".nii.gz")).string();
      if (core::Status s = io::writeImageFile(file, core::ScalarImage(std::move(v).value())); !s) {
        errors[i] = s.error().describe();
        return false;
      }
      return true;
    });
    if (!failure.empty()) return fileError(core::makeError(core::ErrorCode::OutOfMemory, o.masks, failure));
    for (const std::string& e : errors)
      if (!e.empty()) {
        std::fprintf(stderr, "error: %s\n", e.c_str());
        return 1;
      }
  }
  const double voxelMl = doc->grid.voxelVolumeMm3() / 1000.0;
  if (o.json) {
    nlohmann::json j;
    j["file"] = o.rtstruct;
    j["output"] = o.output;
    j["series"] = series->key();
    j["structureSetLabel"] = doc->structureSetLabel;
    j["overlappingVoxels"] = doc->overlappingVoxels;
    j["warnings"] = doc->warnings;
    nlohmann::json rois = nlohmann::json::array();
    for (const auto& r : doc->rois) {
      const auto* mask = doc->findMask(r.number);
      const std::int64_t voxels = mask ? mask->count() : 0;
      const auto re = report.reassigned.find(r.number);
      rois.push_back({{"number", r.number},
                      {"name", r.name},
                      {"interpretedType", r.interpretedType},
                      {"contours", r.closedContours},
                      {"skippedContours", r.skippedContours},
                      {"points", r.points},
                      {"voxels", voxels},
                      {"ml", double(voxels) * voxelMl},
                      {"voxelsToSmallerRois", re == report.reassigned.end() ? 0 : re->second}});
    }
    j["rois"] = rois;
    // Names the file's character set could not give as UTF-8 are shown with replacement characters, not a throw.
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return 0;
  }
  std::printf("%s: structure set '%s' on series %s, %zu ROIs\n", o.rtstruct.c_str(), doc->structureSetLabel.c_str(),
              series->key().c_str(), doc->rois.size());
  std::printf("  %6s  %-32s %-12s %9s %11s %10s\n", "ROI", "name", "type", "contours", "voxels", "mL");
  for (const auto& r : doc->rois) {
    const auto* mask = doc->findMask(r.number);
    const std::int64_t voxels = mask ? mask->count() : 0;
    std::printf("  %6d  %-32.32s %-12.12s %9zu %11lld %10.2f\n", r.number, r.name.c_str(), r.interpretedType.c_str(),
                r.closedContours, static_cast<long long>(voxels), double(voxels) * voxelMl);
  }
  if (doc->overlappingVoxels > 0) {
    std::printf("  %zu voxels are in more than one ROI; in %s each went to the smallest ROI holding it:\n",
                doc->overlappingVoxels, o.output.c_str());
    for (const auto& [number, n] : report.reassigned)
      std::printf("    ROI %d gave %lld voxels to smaller ROIs\n", number, static_cast<long long>(n));
  }
  for (const auto& w : doc->warnings) std::fprintf(stderr, "warning: %s: %s\n", o.rtstruct.c_str(), w.c_str());
  std::printf("wrote %s%s%s\n", o.output.c_str(), beside ? (" (names in " + beside->string() + ")").c_str() : "",
              o.masks.empty() ? "" : (", one mask per ROI in " + o.masks).c_str());
  return 0;
}

}  // namespace delineate::app::cli

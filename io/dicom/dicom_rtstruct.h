#pragma once
// DICOM RT Structure Sets (RTSTRUCT, 1.2.840.10008.5.1.4.1.1.481.3): the planar contours radiotherapy keeps its
// structures in, read onto an image grid and written from label maps.
//
// Reading (readRtStruct), the conventions:
// - Placement: every contour point (patient LPS mm) goes to the reference grid's continuous index. A CLOSED_PLANAR
//   contour belongs to slice k when every point's slice index lies within kRtPlaneTolerance (0.1 slice) of k; a
//   contour off every slice plane (drawn on another series' slices), leaning across slices, or beyond the first or
//   last slice is skipped and named in the document's warnings. In-plane, contours reaching beyond the grid are
//   clipped to it.
// - Inside: a voxel belongs to a contour's area when its centre is inside the polygon. A centre exactly on an edge
//   counts by a half-open rule (left and top edges in, right and bottom edges out), so two polygons sharing an edge
//   never both take, nor both miss, the voxels along it.
// - Several contours of one ROI on one slice combine by even-odd over all their edges: a contour inside another is a
//   hole, a contour inside a hole an island; contours that cross each other leave their overlap out (each centre
//   counts the edges it is inside of); the same contour twice cancels itself. (plastimatch's reader ORs contours
//   unless given --xor-contours; holes stored as separate contours, as plastimatch writes them, read as holes.)
// - POINT, OPEN_PLANAR and OPEN_NONPLANAR contours are skipped, counted per ROI and named in the warnings.
// - Each ROI is its own mask (RtRoiMask); masks may overlap, and the document counts the voxels in more than one.
//   rtStructToLabelMap flattens them by a stated rule (smallest ROI wins).
// - The label table: ROI Number -> label id (ROI Numbers are unique per structure set; 1..65535), ROI Name -> name,
//   ROI Display Color -> colour (else LabelTable::defaultColor), the RT ROI Identification Code -> the terminology's
//   type. RT ROI Interpreted Type, interpreter and generation algorithm stay in RtRoiInfo.
// - Refused by name (typed errors naming the file and, where one is at fault, the ROI and contour): not an RTSTRUCT
//   (Unsupported); no Referenced Frame of Reference Sequence, a Frame of Reference other than the reference series'
//   (GeometryMismatch), a contour of an ROI the Structure Set ROI Sequence does not declare, a CLOSED_PLANAR contour
//   with fewer than 3 points, Number of Contour Points that does not match Contour Data, coordinates that are not
//   finite numbers or lie more than 10 km from the origin (Corrupt); a contour of more than kRtMaxContourPoints
//   points, more than kRtMaxPoints in the file, an ROI's contours on one slice crossing the rows of pixel centres more
//   than kRtMaxRowCrossings times (a zigzag of few points costing gigabytes), or masks beyond 4 GiB together
//   (SizeLimit, checked before allocating).
//
// Writing (writeRtStruct), the conventions:
// - One ROI per label present, ROI Number = the label id, ROI Name = the table's name ("Label <id>" without one),
//   ROI Display Color = its colour, the type code (if any) as RT ROI Identification Code, RT ROI Interpreted Type from
//   the options (ORGAN by default), ROI Interpreter and Operators' Name = the author.
// - Contours at sub-voxel positions: on each slice, every boundary between a labelled voxel and an unlabelled one
//   (4-neighbours) contributes the midpoint between their centres, and these midpoints are joined around each
//   4-connected region (so diagonal neighbours make separate contours, and holes are separate contours running the
//   other way). The result is then simplified: collinear points dropped, and Douglas-Peucker within 0.25 pixel.
//   Every voxel centre lies at least 0.354 pixel from such a contour, so the simplified contours still hold exactly
//   the labelled centres: read back by the rules above, the label map comes back voxel for voxel.
// - The structure set references the series (Referenced Frame of Reference > RT Referenced Study > Series, with every
//   instance in the Contour Image Sequence) and each contour its slice's instance.
// - Implicit VR little endian (32-bit lengths: Contour Data of more than about 2,200 points passes explicit VR's 64 KB
//   for DS). ROI names single-valued (no '\\'); more than kRtMaxPoints points in all is refused (SizeLimit).
// - Patient and study attributes come from the series' first instance (or the PS3.15 basic profile's replacements,
//   with fresh UIDs, when de-identifying), as for SEG (io/dicom/dicom_seg_write.h). The file is written atomically.
// - Errors: labels not on the series' grid (GeometryMismatch), a series that is not a regular image grid or lacks the
//   instance of a slice (Unsupported), an empty map or bad options (InvalidArgument), the folder missing or
//   unwritable (WriteFailed; an existing file is untouched).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"
#include "core/label_map.h"
#include "core/label_table.h"
#include "io/dicom/dicom.h"
#include "io/dicom/dicom_seg.h"

namespace delineate::io {

inline constexpr const char* kRtStructureSetStorage = "1.2.840.10008.5.1.4.1.1.481.3";

// How far (in slices) a contour's points may lie from the slice plane it is placed on.
constexpr double kRtPlaneTolerance = 0.1;
// The most points one contour may have: a contour around every pixel edge of a 1024 x 1024 slice has 4 M.
constexpr std::int64_t kRtMaxContourPoints = std::int64_t(4) << 20;
// How often one ROI's contours on one slice may cross the rows of pixel centres (16 bytes each while rasterising): a
// traced 1024 x 1024 slice has about a million.
constexpr std::int64_t kRtMaxRowCrossings = std::int64_t(32) << 20;
// How far from the origin a contour point may lie (mm): 10 km.
constexpr double kRtMaxCoordinateMm = 1e7;
// The most points in one structure set (each point is 3 DS values of up to 16 bytes).
constexpr std::int64_t kRtMaxPoints = std::int64_t(64) << 20;

struct RtRoiInfo {
  int number = 0;              // ROI Number
  std::string name;            // ROI Name
  std::optional<core::Rgba> displayColor;
  std::string interpretedType;      // RT ROI Interpreted Type (ORGAN, PTV, EXTERNAL, ...); empty when not given
  std::string interpreter;          // ROI Interpreter
  std::string generationAlgorithm;  // ROI Generation Algorithm (AUTOMATIC, SEMIAUTOMATIC, MANUAL)
  core::CodedConcept code;          // RT ROI Identification Code
  std::string frameOfReferenceUid;  // Referenced Frame of Reference UID
  std::size_t closedContours = 0;   // CLOSED_PLANAR contours rasterised
  std::size_t skippedContours = 0;  // other geometric types, or off the slice planes (see warnings)
  std::int64_t points = 0;          // points of the rasterised contours
};

// An ROI's binary mask over `box` of the document's grid (number = ROI Number): the SEG reader's mask type.
using RtRoiMask = SegSegmentMask;

struct RtStructDocument {
  core::Geometry grid;  // the reference grid
  std::string sopInstanceUid, studyInstanceUid, seriesInstanceUid;
  std::string structureSetLabel, structureSetName;
  std::string frameOfReferenceUid;  // of the first Referenced Frame of Reference item
  std::string referencedSeriesUid;  // the first RT Referenced Series (empty when the file names none)
  std::vector<RtRoiInfo> rois;      // in Structure Set ROI Sequence order
  std::vector<RtRoiMask> masks;     // one per ROI with any voxel, by ROI number
  std::vector<std::string> warnings;  // what was skipped and why, naming the ROI and the contour
  std::size_t overlappingVoxels = 0;  // voxels in more than one ROI's mask

  const RtRoiInfo* findRoi(int number) const;
  const RtRoiMask* findMask(int number) const;
};

struct RtStructReadOptions {
  // The reference series' Frame of Reference UID: when both it and the structure set's are known and differ, the
  // read fails (the contours are in another patient coordinate system).
  std::string referenceFrameOfReferenceUid;
  // The reference series' UID: a structure set that names another series (on the same frame of reference) is read,
  // with a warning.
  std::string referenceSeriesUid;
};

// The contours of `path` on `grid` (the reference series as loaded by io).
core::Result<RtStructDocument> readRtStruct(const std::string& path, const core::Geometry& grid,
                                            const RtStructReadOptions& options = {});

// How many voxels a flattening gave up: where ROIs overlap, each voxel goes to the smallest ROI holding it (fewest
// voxels; ties to the lower ROI number), so a tumour stays visible inside its organ and an organ inside the BODY
// outline. `overlappingVoxels` voxels were in more than one ROI; `reassigned[n]` is how many of ROI n's voxels went to
// a smaller one.
struct RtFlattenReport {
  std::size_t overlappingVoxels = 0;
  std::map<int, std::int64_t> reassigned;
};

// A label map on doc.grid (label id = ROI Number) and the table of every ROI (those without voxels too). ROI
// Numbers outside 1..65535 are refused (InvalidArgument).
core::Result<std::pair<core::LabelMap, core::LabelTable>> rtStructToLabelMap(const RtStructDocument& doc,
                                                                            RtFlattenReport* report = nullptr);

struct RtStructWriteOptions {
  std::string structureSetLabel = "Delineate";  // SH: 16 characters kept
  std::string seriesDescription = "Delineate structures";
  int seriesNumber = 301;
  std::string author;                      // Operators' Name and ROI Interpreter (PN); never written when de-identifying
  std::string interpretedType = "ORGAN";   // RT ROI Interpreted Type of every ROI (empty: not given)
  std::map<core::Label, std::string> interpretedTypes;  // per label, over interpretedType
  std::string generationAlgorithm = "SEMIAUTOMATIC";    // AUTOMATIC, SEMIAUTOMATIC or MANUAL
  double simplifyPixels = 0.25;  // Douglas-Peucker tolerance; 0 keeps every midpoint but collinear ones; < 0.35
  bool deidentify = false;
};

struct RtStructWriteInfo {
  std::string sopInstanceUid, seriesInstanceUid;
  std::size_t rois = 0, contours = 0;
  std::int64_t points = 0;
};

core::Status writeRtStruct(const std::string& path, const core::LabelMap& labels, const core::LabelTable& table,
                           const DicomSeries& source, const RtStructWriteOptions& options = {},
                           RtStructWriteInfo* info = nullptr);

// The contours of one slice of a binary mask (nx x ny, x fastest) as the writer traces them, in pixel coordinates
// (x, y): each loop's points in order, the last joined back to the first. Exposed for tests.
std::vector<std::vector<std::pair<double, double>>> traceSliceContours(const std::uint8_t* mask, int nx, int ny,
                                                                       double simplifyPixels);

// How many row crossings rasterizeEvenOdd would collect for these polygons on a slice of ny rows (checked against
// kRtMaxRowCrossings before it runs).
std::int64_t rowCrossings(const std::vector<std::vector<std::pair<double, double>>>& polygons, int ny);

// Even-odd rasterisation of closed polygons (pixel coordinates) onto an nx x ny slice by the reader's rules: sets 1
// where a pixel centre is inside. Exposed for tests.
void rasterizeEvenOdd(const std::vector<std::vector<std::pair<double, double>>>& polygons, int nx, int ny,
                      std::uint8_t* out);

}  // namespace delineate::io

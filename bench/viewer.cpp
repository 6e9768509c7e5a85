// The window's speed and memory (issue 7), offscreen under Xvfb + Mesa (llvmpipe: software OpenGL, so frame times
// are CPU-bound here; a GPU machine renders faster):
//   1. slice render with the label overlay at 512 x 512 pixels, scrolling one slice per frame: ours (VtkView +
//      SliceScene: resliced image and labels in a QOpenGLWidget) beside VTK's classic 2D pipeline in its own offscreen
//      window (two vtkImageActors, the labels through vtkImageMapToColors, display extent per slice), the pattern of
//      vtkImageViewer2-based viewers; same volume, same slices, same window size, each frame read back to memory;
//   2. time to first image for a DICOM series: the window from "open folder" to the first frame of the study, beside
//      reading the same series with io alone (no window);
//   3. peak memory with the CT and its label map open in the window (surfaces built), beside the raw data size
//      (the series' 16-bit pixels + a 16-bit label map, as issue 27 counts it: atlases exceed 255 labels);
//   4. the surfaces: build time after the labels open, triangles, and a 3D frame (turned a step, drawn and read
//      back) at the detail BENCH_SURFACE_DETAIL asks for (full, reduced or auto, the preference's values).
// Usage (scripts/bench_viewer.sh prepares the inputs): bench_viewer --dicom DIR --labels LABELS.nii.gz [--frames N]
#include <QApplication>
#include <QElapsedTimer>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QSettings>
#include <QSignalSpy>
#include <QTimer>

#include <vtkCamera.h>
#include <vtkImageActor.h>
#include <vtkImageData.h>
#include <vtkImageMapToColors.h>
#include <vtkImageMapper3D.h>
#include <vtkImageProperty.h>
#include <vtkLookupTable.h>
#include <vtkPolyData.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkSmartPointer.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "app/gui/shell/main_window.h"
#include "app/gui/study/study_document.h"
#include "app/gui/study/study_loader.h"
#include "app/gui/views/surface_builder.h"
#include "app/gui/views/view_panels.h"
#include "bench/bench_support.h"
#include "bench/bench_window_support.h"
#include "io/dicom/dicom.h"
#include "io/volume/image_file.h"
#include "viewer/label_colors.h"
#include "viewer/slice_scene.h"
#include "viewer/surface_scene.h"
#include "viewer/vtk_bridge.h"
#include "viewer/vtk_view.h"

using namespace delineate;

namespace {

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "bench_viewer: %s\n", m.c_str());
  std::exit(1);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string dicom, labelsPath;
  int frames = 100;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { if (i + 1 >= argc) die(a + " needs a value"); return argv[++i]; };
    if (a == "--dicom") dicom = next();
    else if (a == "--labels") labelsPath = next();
    else if (a == "--frames") frames = std::atoi(next().c_str());
    else die("unknown option " + a);
  }
  if (dicom.empty() || labelsPath.empty()) die("usage: bench_viewer --dicom DIR --labels LABELS.nii.gz [--frames N]");
  viewer::VtkView::setDefaultSurfaceFormat();
  QApplication app(argc, argv);
  bench::nameBenchApplication();
  QSettings().setValue("view/surfaceDetail", qEnvironmentVariable("BENCH_SURFACE_DETAIL", "auto"));

  // 3 and 2 first, on a fresh process: the window opens the series and the labels.
  const std::size_t rssBefore = bench::statusBytes("VmRSS:");
  app::gui::MainWindow window;
  bench::showBenchWindow(window);
  QSignalSpy loaded(&window, &app::gui::MainWindow::studyLoaded), failed(&window, &app::gui::MainWindow::loadFailed),
      labelsLoaded(&window, &app::gui::MainWindow::labelsLoaded), surfaces(&window, &app::gui::MainWindow::surfacesReady);
  QElapsedTimer clock;
  clock.start();
  window.loader().openDicomFolder(QString::fromStdString(dicom));
  while (loaded.isEmpty() && failed.isEmpty()) loaded.wait(100);
  if (!failed.isEmpty()) die(failed.front().at(0).toString().toStdString());
  auto* axial = window.slicePanel(viewer::SliceOrientation::Axial);
  axial->view().repaint();
  const double firstImage = static_cast<double>(clock.nsecsElapsed()) / 1e9;
  const auto dims = window.document().session()->image().geometry().dimensions();
  const auto voxels = static_cast<double>(dims[0] * dims[1] * dims[2]);

  const std::size_t peakImage = bench::statusBytes("VmHWM:");
  if (std::getenv("BENCH_STOP_AFTER_IMAGE")) {
    std::printf("process before the window %.0f MB; peak RSS with the image open %.0f MB (%.0f M voxels)\n",
                static_cast<double>(rssBefore) / 1e6, static_cast<double>(peakImage) / 1e6, voxels / 1e6);
    return 0;
  }
  window.loader().openLabels(QString::fromStdString(labelsPath));
  while (labelsLoaded.isEmpty() && failed.isEmpty()) labelsLoaded.wait(100);
  if (!failed.isEmpty()) die(failed.front().at(0).toString().toStdString());
  const std::size_t peakLabels = bench::statusBytes("VmHWM:");
  clock.restart();
  while (surfaces.size() < 2) surfaces.wait(20);  // the image's (none) and the labels' surfaces
  const double surfaceSeconds = static_cast<double>(clock.nsecsElapsed()) / 1e9;
  QApplication::processEvents();
  {
    const QImage shot = window.screenshot();
    if (const char* path = std::getenv("BENCH_SCREENSHOT")) shot.save(QString::fromUtf8(path));
  }
  const std::size_t peak = bench::statusBytes("VmHWM:");
  {
    vtkIdType triangles = 0, points = 0;
    const auto meshes = window.surfacePanel()->scene().surfaces();
    for (const auto& [label, mesh] : meshes) {
      triangles += mesh->GetNumberOfPolys();
      points += mesh->GetNumberOfPoints();
    }
    std::printf("surfaces: %zu labels, %.2f M triangles, %.2f M points, %s detail (renderer %s), built %.2f s after the "
                "labels opened\n",
                meshes.size(), double(triangles) / 1e6, double(points) / 1e6,
                window.surfaceBuilder().detail() == viewer::SurfaceDetail::Full ? "full" : "reduced",
                viewer::VtkView::openGlRenderer().toStdString().c_str(), surfaceSeconds);
    // The 3D view turned a step at a time, each frame drawn and read back; then without the three image planes
    // (View > Slices in 3D off): what the surfaces alone cost a frame.
    auto* view3d = window.surfacePanel();
    auto turn = [&] {
      std::vector<double> ms;
      for (int i = 0; i < 20; ++i) {
        QElapsedTimer t;
        t.start();
        view3d->scene().rotate(12, 0);
        if (view3d->view().capture().isNull()) die("no 3D frame");
        ms.push_back(bench::msSince(t));
      }
      return ms;
    };
    const std::vector<double> frames3d = turn();
    view3d->scene().setSlicesVisible(false);
    const std::vector<double> surfacesOnly = turn();
    view3d->scene().setSlicesVisible(true);
    std::printf("3D view %dx%d px, turned and drawn (ms per frame): p50 %.1f  p95 %.1f\n", view3d->view().pixelSize().width(),
                view3d->view().pixelSize().height(), bench::percentile(frames3d, 0.5), bench::percentile(frames3d, 0.95));
    std::printf("3D view, surfaces alone (no image planes): p50 %.1f  p95 %.1f\n", bench::percentile(surfacesOnly, 0.5),
                bench::percentile(surfacesOnly, 0.95));
  }
  const double raw = voxels * (2 + 2);
  std::printf("peak RSS by stage: image open %.0f MB, labels open %.0f MB, surfaces built %.0f MB (%.2fx raw %.0f MB)\n",
              static_cast<double>(peakImage) / 1e6, static_cast<double>(peakLabels) / 1e6,
              static_cast<double>(peak) / 1e6, static_cast<double>(peak) / raw, raw / 1e6);
  if (std::getenv("BENCH_STOP_AFTER_SURFACES")) return 0;
  std::printf("study: %ld x %ld x %ld (%.0f M voxels) from %s\n", static_cast<long>(dims[0]), static_cast<long>(dims[1]),
              static_cast<long>(dims[2]), voxels / 1e6, dicom.c_str());
  std::printf("\npeak RSS with the CT and labels open, surfaces built: %.0f MB (process before the window: %.0f MB)\n",
              static_cast<double>(peak) / 1e6, static_cast<double>(rssBefore) / 1e6);
  std::printf("raw data (16-bit CT + 16-bit labels): %.0f MB; ratio %.2f (goal < 1.5)\n", raw / 1e6,
              static_cast<double>(peak) / raw);

  // The same series read by io alone.
  clock.restart();
  auto index = io::indexDicomFolder(dicom);
  if (!index || index->allSeries().empty()) die("cannot index " + dicom);
  auto series = io::loadDicomSeries(*index->allSeries().front());
  if (!series) die(series.error().describe());
  const double ioOnly = static_cast<double>(clock.nsecsElapsed()) / 1e9;
  series = core::makeError(core::ErrorCode::Cancelled, "", "");  // free it before the memory figure

  std::printf("\ntime to first image (open folder -> first frame): window %.2f s, io alone (index + load) %.2f s\n",
              firstImage, ioOnly);

  // 1. Slice render at 512 x 512, ours beside VTK's classic 2D pipeline.
  const core::ScalarImage& image = window.document().session()->image();
  const core::LabelMap& labels = window.document().session()->labels();
  viewer::VtkView view;
  view.resize(512, 512);
  view.show();
  viewer::SliceScene scene(view.renderer(), viewer::SliceOrientation::Axial);
  scene.setImage(&image);
  if (!std::getenv("BENCH_NO_LABELS")) scene.setLabels(&labels);
  scene.setLabelColors(window.document().session()->table(), {});
  scene.setLabelOpacity(0.5);
  scene.setWindowLevel(400, 40);
  QApplication::processEvents();
  view.repaint();
  std::vector<double> ours, oursPaint;
  view.setMeasurePaint(true);
  for (int f = 0; f < frames; ++f) {
    QElapsedTimer t;
    t.start();
    scene.scroll(f % 2 ? 1 : 2);  // the overlay is resliced here
    const QImage frame = view.capture();  // paintGL, then the frame read back
    ours.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    oursPaint.push_back(view.lastPaintMs());
    if (frame.isNull()) die("no frame");
  }

  // The same frames with the image as float32 (what the window held before issue 27), same scene and labels.
  std::vector<double> oursFloat;
  {
    auto asFloat = image.toFloat();
    if (!asFloat) die(asFloat.error().describe());
    scene.setImage(&*asFloat);
    if (!std::getenv("BENCH_NO_LABELS")) scene.setLabels(&labels);
    scene.setLabelColors(window.document().session()->table(), {});
    scene.setWindowLevel(400, 40);
    QApplication::processEvents();
    view.repaint();
    for (int f = 0; f < frames; ++f) {
      QElapsedTimer t;
      t.start();
      scene.scroll(f % 2 ? 1 : 2);
      const QImage frame = view.capture();
      oursFloat.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
      if (frame.isNull()) die("no frame");
    }
    scene.setImage(nullptr);
  }

  auto imageData = viewer::wrapImage(image);
  auto labelData = viewer::wrapLabels(labels);
  auto window2 = vtkSmartPointer<vtkRenderWindow>::New();
  window2->SetOffScreenRendering(1);
  window2->SetMultiSamples(0);  // as our slice views: no multisampling
  window2->SetSize(512, 512);
  auto renderer = vtkSmartPointer<vtkRenderer>::New();
  window2->AddRenderer(renderer);
  auto imageActor = vtkSmartPointer<vtkImageActor>::New();
  imageActor->GetMapper()->SetInputData(imageData);
  imageActor->GetProperty()->SetColorWindow(400);
  imageActor->GetProperty()->SetColorLevel(40);
  auto colors = vtkSmartPointer<vtkImageMapToColors>::New();
  colors->SetInputData(labelData);
  colors->SetLookupTable(viewer::labelLookupTable(window.document().session()->table(), {}, 255));
  colors->SetOutputFormatToRGBA();
  auto labelActor = vtkSmartPointer<vtkImageActor>::New();
  labelActor->GetMapper()->SetInputConnection(colors->GetOutputPort());
  labelActor->SetOpacity(0.5);
  labelActor->GetProperty()->SetInterpolationTypeToNearest();
  renderer->AddActor(imageActor);
  renderer->AddActor(labelActor);
  int slice = static_cast<int>(dims[2] / 2);
  auto show = [&](int k) {
    imageActor->SetDisplayExtent(0, static_cast<int>(dims[0] - 1), 0, static_cast<int>(dims[1] - 1), k, k);
    labelActor->SetDisplayExtent(0, static_cast<int>(dims[0] - 1), 0, static_cast<int>(dims[1] - 1), k, k);
  };
  show(slice);
  renderer->ResetCamera();
  renderer->GetActiveCamera()->ParallelProjectionOn();
  renderer->ResetCamera();
  window2->Render();
  std::vector<double> peer;
  for (int f = 0; f < frames; ++f) {
    slice = std::min<int>(static_cast<int>(dims[2] - 1), slice + (f % 2 ? 1 : 2));
    QElapsedTimer t;
    t.start();
    show(slice);
    window2->Render();
    unsigned char* pixels = window2->GetRGBACharPixelData(0, 0, 511, 511, 0);  // read back, as ours
    peer.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    delete[] pixels;
  }
  std::printf("\nslice render with overlay, 512 x 512 px, %d frames scrolling, each frame read back (ms per frame, Mesa "
              "llvmpipe):\n", frames);
  std::printf("  %-44s p50 %7.2f   p95 %7.2f\n", ("ours (VtkView + SliceScene, resliced, " + std::string(core::scalarTypeName(image.type())) + ")").c_str(), median(ours), bench::percentile(ours, 0.95));
  std::printf("  %-44s p50 %7.2f   p95 %7.2f\n", "ours, paint alone (render + blit, finished)", median(oursPaint),
              bench::percentile(oursPaint, 0.95));
  std::printf("  %-44s p50 %7.2f   p95 %7.2f\n", ("ours, the image as float32 (not " + std::string(core::scalarTypeName(image.type())) + ")").c_str(),
              median(oursFloat), bench::percentile(oursFloat, 0.95));
  std::printf("  %-44s p50 %7.2f   p95 %7.2f\n", "VTK classic 2D (vtkImageActor x 2, own window)", median(peer),
              bench::percentile(peer, 0.95));
  return 0;
}

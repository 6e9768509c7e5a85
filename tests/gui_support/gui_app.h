#pragma once
// The QApplication of a GUI test binary, created on first use. Where there is no display, the tests start their own
// X server (Xvfb, software OpenGL through Mesa) on a free display number and stop it at exit, so they run the same
// on a desktop, over ssh and in CI.

#include <QApplication>

namespace delineate::test {

QApplication& guiApp();

// Compares `actual` with the PNG baseline tests/<suite>/baselines/<name>.png: the share of pixels whose largest
// channel difference exceeds `pixelTolerance` must stay below `maxShare`. On a mismatch (or a missing baseline) the
// actual image is written to <build>/test-output/<name>.png and the message says where. With
// DELINEATE_UPDATE_BASELINES=1 a missing or different baseline is (re)written instead.
struct ImageComparison {
  bool ok = false;
  double share = 0;  // of pixels beyond the tolerance
  std::string message;
};
ImageComparison compareWithBaseline(const QImage& actual, const std::string& suite, const std::string& name,
                                    int pixelTolerance = 24, double maxShare = 0.01);

}  // namespace delineate::test

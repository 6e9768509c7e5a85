#pragma once
// The dialog behind File > Export > Label Statistics of a Slice Range: a view and a range of its slices, numbered as
// the view's title counts them (1..n).
#include <QDialog>

#include <array>
#include <cstdint>
#include <optional>
#include <utility>

#include "viewer/slice_scene.h"

class QComboBox;
class QSpinBox;

namespace delineate::app::gui {

struct ViewSliceRange {
  viewer::SliceOrientation view = viewer::SliceOrientation::Axial;
  std::int64_t first = 1, last = 1;  // 1-based, inclusive
};

class SliceRangeDialog : public QDialog {
  Q_OBJECT
 public:
  // `slices`: the current slice (0-based) and the slice count of the axial, coronal and sagittal views. Both ends
  // start at the chosen view's current slice.
  SliceRangeDialog(const std::array<std::pair<std::int64_t, std::int64_t>, 3>& slices, QWidget* parent = nullptr);
  ViewSliceRange range() const;

 private:
  void viewChosen(int index);

  std::array<std::pair<std::int64_t, std::int64_t>, 3> m_slices;
  QComboBox* m_view;
  QSpinBox* m_first;
  QSpinBox* m_last;
};

}  // namespace delineate::app::gui

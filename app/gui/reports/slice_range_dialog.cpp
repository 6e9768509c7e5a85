#include "app/gui/reports/slice_range_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QSpinBox>

namespace delineate::app::gui {

namespace {
constexpr std::array<viewer::SliceOrientation, 3> kViews{viewer::SliceOrientation::Axial, viewer::SliceOrientation::Coronal,
                                                         viewer::SliceOrientation::Sagittal};
}

SliceRangeDialog::SliceRangeDialog(const std::array<std::pair<std::int64_t, std::int64_t>, 3>& slices, QWidget* parent)
    : QDialog(parent), m_slices(slices) {
  setWindowTitle(tr("Statistics of a Slice Range"));
  auto* form = new QFormLayout(this);
  m_view = new QComboBox(this);
  m_view->addItems({tr("Axial"), tr("Coronal"), tr("Sagittal")});
  m_first = new QSpinBox(this);
  m_last = new QSpinBox(this);
  form->addRow(tr("Slices of the view:"), m_view);
  form->addRow(tr("From slice:"), m_first);
  form->addRow(tr("To slice:"), m_last);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_view, &QComboBox::currentIndexChanged, this, &SliceRangeDialog::viewChosen);
  viewChosen(0);
}

void SliceRangeDialog::viewChosen(int index) {
  const auto [current, count] = m_slices[static_cast<std::size_t>(std::clamp(index, 0, 2))];
  for (QSpinBox* box : {m_first, m_last}) {
    box->setRange(1, static_cast<int>(std::max<std::int64_t>(1, count)));
    box->setValue(static_cast<int>(current + 1));
  }
}

ViewSliceRange SliceRangeDialog::range() const {
  ViewSliceRange r;
  r.view = kViews[static_cast<std::size_t>(std::clamp(m_view->currentIndex(), 0, 2))];
  r.first = std::min(m_first->value(), m_last->value());
  r.last = std::max(m_first->value(), m_last->value());
  return r;
}

}  // namespace delineate::app::gui

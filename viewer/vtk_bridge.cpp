#include "viewer/vtk_bridge.h"

#include <vtkFloatArray.h>
#include <vtkIntArray.h>
#include <vtkShortArray.h>
#include <vtkUnsignedCharArray.h>
#include <vtkImageData.h>
#include <vtkMatrix4x4.h>
#include <vtkPointData.h>
#include <vtkUnsignedShortArray.h>

#include <cstdint>
#include <type_traits>

namespace delineate::viewer {
namespace {

template <class Array, class T>
vtkSmartPointer<vtkImageData> wrap(const core::Geometry& g, const T* data, std::size_t count) {
  auto image = vtkSmartPointer<vtkImageData>::New();
  const auto& d = g.dimensions();
  const auto& s = g.spacingMm();
  image->SetDimensions(static_cast<int>(d[0]), static_cast<int>(d[1]), static_cast<int>(d[2]));
  image->SetSpacing(s[0], s[1], s[2]);
  image->SetOrigin(0, 0, 0);
  auto array = vtkSmartPointer<Array>::New();
  array->SetNumberOfComponents(1);
  // save = 1: VTK never frees or reallocates the volume's buffer.
  array->SetArray(const_cast<T*>(data), static_cast<vtkIdType>(count), 1);
  image->GetPointData()->SetScalars(array);
  return image;
}

}  // namespace

vtkSmartPointer<vtkImageData> wrapImage(core::ImageView image) {
  return image.visit([](const auto& v) -> vtkSmartPointer<vtkImageData> {
    using T = typename std::decay_t<decltype(v)>::value_type;
    if constexpr (std::is_same_v<T, float>) return wrap<vtkFloatArray>(v.geometry(), v.data(), v.size());
    else if constexpr (std::is_same_v<T, std::uint8_t>) return wrap<vtkUnsignedCharArray>(v.geometry(), v.data(), v.size());
    else if constexpr (std::is_same_v<T, std::int16_t>) return wrap<vtkShortArray>(v.geometry(), v.data(), v.size());
    else if constexpr (std::is_same_v<T, std::uint16_t>) return wrap<vtkUnsignedShortArray>(v.geometry(), v.data(), v.size());
    else return wrap<vtkIntArray>(v.geometry(), v.data(), v.size());
  });
}

vtkSmartPointer<vtkImageData> wrapLabels(const core::LabelMap& labels) {
  static_assert(sizeof(core::Label) == sizeof(unsigned short), "labels are 16-bit");
  return wrap<vtkUnsignedShortArray>(labels.geometry(), reinterpret_cast<const unsigned short*>(labels.data()), labels.size());
}

vtkSmartPointer<vtkMatrix4x4> localToLps(const core::Geometry& geometry) {
  auto m = vtkSmartPointer<vtkMatrix4x4>::New();
  const auto& d = geometry.direction();
  const auto& o = geometry.originLps();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) m->SetElement(r, c, d(r, c));
    m->SetElement(r, 3, o[static_cast<std::size_t>(r)]);
  }
  return m;
}

}  // namespace delineate::viewer

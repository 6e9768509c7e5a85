#pragma once
// The classic engine's names for core's binary morphology (core/morphology.h), which moved to core so the manual
// label tools share it. Kept only for inference/vista3d (combine.cpp, postprocess.cpp), which still include this
// header; new code includes core/morphology.h. Delete once those two include core's header.

#include "core/morphology.h"

namespace delineate::inference::classic {

using core::Components;
using core::connectedComponents;
using core::Connectivity;
using core::dilate;
using core::erode;
using core::fillHoles;
using core::Mask;
using core::squaredDistanceToBackground;

}  // namespace delineate::inference::classic

// The planar geometry of RT structure sets: tracing a slice's regions into contours (the writer) and even-odd
// rasterisation of contours (the reader). Conventions: io/dicom/dicom_rtstruct.h.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "io/dicom/dicom_rtstruct.h"

namespace delineate::io {

namespace {

// The four sides of a pixel, in the order a boundary walks around a lone pixel: left, bottom, right, top (y grows
// downwards). Walking a side keeps the pixel on one hand: travel (kTx, kTy); the neighbour across it is (kNx, kNy).
constexpr int kTx[4] = {0, 1, 0, -1}, kTy[4] = {1, 0, -1, 0};
constexpr int kNx[4] = {-1, 0, 1, 0}, kNy[4] = {0, 1, 0, -1};

// Points in doubled pixel coordinates (side midpoints are half-integers), so collinearity is exact.
struct P2 {
  std::int64_t x, y;
};

std::int64_t cross(const P2& a, const P2& b, const P2& c) { return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x); }

// Drops every point on the straight line through its neighbours (a closed loop).
std::vector<P2> dropCollinear(const std::vector<P2>& loop) {
  std::vector<P2> out;
  const std::size_t n = loop.size();
  if (n < 3) return loop;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const P2& prev = loop[(i + n - 1) % n];
    const P2& next = loop[(i + 1) % n];
    if (cross(prev, loop[i], next) != 0) out.push_back(loop[i]);
  }
  return out;
}

// Squared distance (in pixels^2) of p from the segment a-b, all in doubled coordinates.
double segmentDistance2(const P2& a, const P2& b, const P2& p) {
  const double dx = double(b.x - a.x), dy = double(b.y - a.y);
  const double px = double(p.x - a.x), py = double(p.y - a.y);
  const double len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? (px * dx + py * dy) / len2 : 0;
  t = std::clamp(t, 0.0, 1.0);
  const double ex = px - t * dx, ey = py - t * dy;
  return (ex * ex + ey * ey) / 4;  // doubled coordinates: a quarter in pixels^2
}

// Douglas-Peucker on a closed loop (iteratively: loops can have millions of points): the first point and the one
// farthest from it split the loop into two chains, each kept within `tolerance` pixels of the chords that replace it.
std::vector<P2> simplifyLoop(const std::vector<P2>& loop, double tolerance) {
  const std::size_t n = loop.size();
  if (n <= 4 || tolerance <= 0) return loop;
  std::size_t far = 0;
  double best = -1;
  for (std::size_t i = 1; i < n; ++i) {
    const double dx = double(loop[i].x - loop[0].x), dy = double(loop[i].y - loop[0].y);
    if (dx * dx + dy * dy > best) {
      best = dx * dx + dy * dy;
      far = i;
    }
  }
  std::vector<char> keep(n + 1, 0);  // index n stands for point 0 again (closing the second chain)
  keep[0] = keep[far] = keep[n] = 1;
  const double tol2 = tolerance * tolerance;
  std::vector<std::pair<std::size_t, std::size_t>> stack{{0, far}, {far, n}};
  while (!stack.empty()) {
    const auto [a, b] = stack.back();
    stack.pop_back();
    if (b <= a + 1) continue;
    const P2& pa = loop[a % n];
    const P2& pb = loop[b % n];
    double worst = -1;
    std::size_t at = a;
    for (std::size_t i = a + 1; i < b; ++i) {
      const double d = segmentDistance2(pa, pb, loop[i]);
      if (d > worst) {
        worst = d;
        at = i;
      }
    }
    if (worst > tol2) {
      keep[at] = 1;
      stack.push_back({a, at});
      stack.push_back({at, b});
    }
  }
  std::vector<P2> out;
  for (std::size_t i = 0; i < n; ++i)
    if (keep[i]) out.push_back(loop[i]);
  return out;
}

}  // namespace

std::vector<std::vector<std::pair<double, double>>> traceSliceContours(const std::uint8_t* mask, int nx, int ny,
                                                                       double simplifyPixels) {
  std::vector<std::vector<std::pair<double, double>>> out;
  if (nx <= 0 || ny <= 0) return out;
  // A one-pixel empty border, so every neighbour test is a plain lookup.
  const std::int64_t w = nx + 2, h = ny + 2;
  std::vector<std::uint8_t> in(std::size_t(w * h), 0);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) in[std::size_t((y + 1) * w + x + 1)] = mask[std::size_t(y) * std::size_t(nx) + std::size_t(x)] != 0;
  std::vector<std::uint8_t> visited(std::size_t(w * h), 0);  // bit s: side s walked
  auto at = [&](std::int64_t x, std::int64_t y) { return std::size_t(y * w + x); };
  auto isBoundary = [&](std::int64_t x, std::int64_t y, int s) {
    return in[at(x, y)] && !in[at(x + kNx[s], y + kNy[s])];
  };
  std::vector<P2> loop;
  for (std::int64_t y = 1; y <= ny; ++y)
    for (std::int64_t x = 1; x <= nx; ++x) {
      if (!in[at(x, y)]) continue;
      for (int s0 = 0; s0 < 4; ++s0) {
        if (!isBoundary(x, y, s0) || (visited[at(x, y)] & (1u << s0))) continue;
        loop.clear();
        std::int64_t px = x, py = y;
        int s = s0;
        do {
          visited[at(px, py)] |= std::uint8_t(1u << s);
          // The midpoint between this pixel's centre and its outside neighbour's, in doubled unpadded coordinates.
          loop.push_back({2 * (px - 1) + kNx[s], 2 * (py - 1) + kNy[s]});
          // Where the side ends: the pixel ahead, and the one ahead and across. Turning around this pixel first keeps
          // diagonal neighbours in separate loops (4-connected regions).
          const std::int64_t ax = px + kTx[s], ay = py + kTy[s];
          const std::int64_t bx = ax + kNx[s], by = ay + kNy[s];
          if (!in[at(ax, ay)]) {
            s = (s + 1) % 4;
          } else if (!in[at(bx, by)]) {
            px = ax;
            py = ay;
          } else {
            px = bx;
            py = by;
            s = (s + 3) % 4;
          }
        } while (!(px == x && py == y && s == s0));
        std::vector<P2> simple = simplifyLoop(dropCollinear(loop), simplifyPixels);
        std::vector<std::pair<double, double>> contour;
        contour.reserve(simple.size());
        for (const P2& p : simple) contour.emplace_back(double(p.x) / 2, double(p.y) / 2);
        out.push_back(std::move(contour));
      }
    }
  return out;
}

std::int64_t rowCrossings(const std::vector<std::vector<std::pair<double, double>>>& polygons, int ny) {
  std::int64_t n = 0;
  for (const auto& poly : polygons)
    for (std::size_t i = 0; i < poly.size(); ++i) {
      const double y0 = poly[i].second, y1 = poly[(i + 1) % poly.size()].second;
      if (y0 == y1) continue;
      const double first = std::max(std::ceil(std::min(y0, y1)), 0.0);
      const double last = std::min(std::ceil(std::max(y0, y1)) - 1, double(ny - 1));
      if (last >= first) n += std::int64_t(last - first) + 1;
    }
  return n;
}

void rasterizeEvenOdd(const std::vector<std::vector<std::pair<double, double>>>& polygons, int nx, int ny,
                      std::uint8_t* out) {
  if (nx <= 0 || ny <= 0) return;
  // Every crossing of an edge with a row of pixel centres (y = j), rows half-open: an edge from y0 to y1 crosses the
  // rows min <= j < max, so a vertex on a row counts once and horizontal edges never.
  std::vector<std::pair<std::int32_t, double>> crossings;
  for (const auto& poly : polygons) {
    const std::size_t n = poly.size();
    for (std::size_t i = 0; i < n; ++i) {
      const auto& [x0, y0] = poly[i];
      const auto& [x1, y1] = poly[(i + 1) % n];
      if (y0 == y1) continue;
      const double lo = std::min(y0, y1), hi = std::max(y0, y1);
      const double first = std::max(std::ceil(lo), 0.0), last = std::min(std::ceil(hi) - 1, double(ny - 1));
      // As a fraction along the edge (in [0, 1] whatever its slope), so x stays finite for finite ends.
      for (double j = first; j <= last; j += 1) {
        const double t = (j - y0) / (y1 - y0);
        crossings.emplace_back(std::int32_t(j), x0 + t * (x1 - x0));
      }
    }
  }
  std::sort(crossings.begin(), crossings.end());
  // Between crossings 2m and 2m+1 of a row: pixels with centres x0 <= i < x1 (left edges in, right edges out).
  for (std::size_t a = 0; a + 1 < crossings.size();) {
    const std::int32_t row = crossings[a].first;
    std::size_t b = a;
    while (b < crossings.size() && crossings[b].first == row) ++b;
    std::uint8_t* line = out + std::size_t(row) * std::size_t(nx);
    for (std::size_t c = a; c + 1 < b; c += 2) {
      const double from = std::max(std::ceil(crossings[c].second), 0.0);
      const double to = std::min(std::ceil(crossings[c + 1].second) - 1, double(nx - 1));
      for (double i = from; i <= to; i += 1) line[std::size_t(i)] = 1;
    }
    a = b;
  }
}

}  // namespace delineate::io

// OpenCV's transparent API (cv::UMat = its OpenCL path) on whichever OpenCL platform the ICD
// loader shows, operation by operation: the UMat result checked against the cv::Mat (CPU) result,
// the number of kernels the operation launched (through bench/cltrace.c's count mode: an operation that
// launched none ran on the CPU), the first call (which builds the kernels) and the steady state
// (median of N calls, each followed by cv::ocl::finish()).
//
// Usage: ocvbench [--reps N] [--only name,name] [--list]
// Prints the device, then one tab-separated line per operation:
// and, for the operations named in OCVBENCH_PROFILE, the host time of each OpenCL function per call
// of the operation: PROF op function calls_per_op us_per_op us_per_call
//   ROW op first_ms median_ms kernels_per_call check metric tol cpu_ms enqueue_ms pipelined_ms note
// (enqueue_ms: until the call returns, before finish; pipelined_ms: N calls, one finish, per call)
// check is ok, BAD (the metric exceeds tol), EXC (an exception; note says which), CPU (no kernel
// ran: OpenCV fell back to its CPU code) or ERR (an OpenCL call failed during the operation, after
// which OpenCV may have finished it on the CPU; note names the call).
#include <opencv2/core.hpp>
#include <opencv2/core/ocl.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using cv::Mat;
using cv::UMat;

namespace {

// The counters of bench/cltrace.c (found only when OPENCV_OPENCL_RUNTIME points at it; NULL
// unless CLTRACE names its count mode).
long *clcount_or_null() {
  static long *(*f)() = reinterpret_cast<long *(*)()>(dlsym(RTLD_DEFAULT, "clcount_stats"));
  return f ? f() : nullptr;
}
long *clcount() {
  static long zero[6];
  long *s = clcount_or_null();
  return s ? s : zero;
}
long launches() { return clcount()[0]; }
long cl_errors() { return clcount()[4]; }
// cltrace.c's host-time profile of the OpenCL calls (OCVBENCH_PROFILE=op,op names the operations
// whose steady-state calls are profiled: PROF lines, per operation).
void profile_reset() {
  static auto f = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "clcount_profile_reset"));
  if (f) f();
}
void profile_print(const std::string &label, int per) {
  static auto f = reinterpret_cast<void (*)(const char *, int)>(dlsym(RTLD_DEFAULT, "clcount_profile_print"));
  if (f) f(label.c_str(), per);
}
bool profiled(const std::string &op) {
  const char *list = getenv("OCVBENCH_PROFILE");
  return list && ("," + std::string(list) + ",").find("," + op + ",") != std::string::npos;
}
std::string last_cl_error() {
  static auto f = reinterpret_cast<const char *(*)()>(dlsym(RTLD_DEFAULT, "clcount_last_error"));
  return f ? f() : "?";
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Everything an operation reads and writes, as Mat (CPU reference) or UMat (OpenCL).
template <class M> struct Io {
  M bgr, gray, gray2, bin, f32, f32b, mapx, mapy, tmpl, frame0, frame1, pts, small, tiny, big;
  Mat host_bgr;          // for the transfer rows
  M out[3];              // array results
  Mat host_out;          // the download row's result
  double s[8] = {0};     // scalar results
  std::vector<M> parts;  // split's result
};

// How a UMat result is compared with the Mat one.
enum class Metric {
  MaxAbs,   // largest absolute difference of any element
  Frac,     // fraction of elements differing by more than px
  RelL2,    // |gpu - cpu|_2 / |cpu|_2
  Scalars,  // largest relative difference of the scalar results s[0..ns)
};
struct Check {
  Metric metric;
  double tol;
  double px = 0;  // Frac's per-element threshold
  int ns = 0;     // Scalars: how many
};

struct Op {
  std::string name;
  Check check;
  bool expect_kernels;
  std::function<void(Io<Mat> &)> cpu;
  std::function<void(Io<UMat> &)> gpu;
};

std::vector<Op> ops;

template <class F> void add(const char *name, Check check, F f, bool expect_kernels = true) {
  ops.push_back({name, check, expect_kernels, [f](Io<Mat> &io) { f(io); }, [f](Io<UMat> &io) { f(io); }});
}

Mat host(const UMat &m) { return m.getMat(cv::ACCESS_READ).clone(); }

double metric_of(const Check &c, const Mat &ref, const Mat &got) {
  if (ref.empty() && got.empty()) return 0;
  if (ref.size() != got.size() || ref.type() != got.type()) return INFINITY;
  Mat a, b;
  ref.convertTo(a, CV_64F);
  got.convertTo(b, CV_64F);
  a = a.reshape(1);
  b = b.reshape(1);
  switch (c.metric) {
  case Metric::MaxAbs: return cv::norm(a, b, cv::NORM_INF);
  case Metric::Frac: {
    Mat d = cv::abs(a - b) > c.px;
    return double(cv::countNonZero(d)) / double(d.total());
  }
  case Metric::RelL2: {
    double r = cv::norm(a, cv::NORM_L2);
    return cv::norm(a, b, cv::NORM_L2) / (r > 0 ? r : 1);
  }
  default: return 0;
  }
}

// The inputs, made on the CPU from a fixed seed: smooth structure plus noise, so that edges,
// corners and optical flow have something to find.
void make_inputs(Io<Mat> &io, cv::Size size) {
  cv::RNG rng(12345);
  Mat noise(size, CV_8UC3);
  rng.fill(noise, cv::RNG::UNIFORM, 0, 256);
  Mat smooth;
  cv::GaussianBlur(noise, smooth, cv::Size(0, 0), 4);
  cv::normalize(smooth, smooth, 0, 255, cv::NORM_MINMAX);
  Mat fine(size, CV_8UC3);
  rng.fill(fine, cv::RNG::UNIFORM, 0, 40);
  io.bgr = smooth * 0.85 + fine;
  for (int i = 0; i < 40; i++) {  // shapes with sharp edges
    cv::Point p(rng.uniform(0, size.width), rng.uniform(0, size.height));
    cv::Scalar col(rng.uniform(0, 256), rng.uniform(0, 256), rng.uniform(0, 256));
    if (i % 2)
      cv::rectangle(io.bgr, p, p + cv::Point(rng.uniform(20, 200), rng.uniform(20, 200)), col, -1);
    else
      cv::circle(io.bgr, p, rng.uniform(10, 100), col, -1);
  }
  io.host_bgr = io.bgr.clone();
  cv::cvtColor(io.bgr, io.gray, cv::COLOR_BGR2GRAY);
  Mat n2(size, CV_8UC1);
  rng.fill(n2, cv::RNG::UNIFORM, 0, 256);
  cv::GaussianBlur(n2, io.gray2, cv::Size(0, 0), 2);
  cv::normalize(io.gray2, io.gray2, 0, 255, cv::NORM_MINMAX);
  io.bin = io.gray > 128;
  io.gray.convertTo(io.f32, CV_32F, 9.9 / 255, 0.1);  // [0.1, 10]: log and pow stay finite
  io.gray2.convertTo(io.f32b, CV_32F, 9.9 / 255, 0.1);
  io.mapx.create(size, CV_32F);
  io.mapy.create(size, CV_32F);
  for (int y = 0; y < size.height; y++)
    for (int x = 0; x < size.width; x++) {
      io.mapx.at<float>(y, x) = float(x + 3 * std::sin(y / 30.0));
      io.mapy.at<float>(y, x) = float(y + 3 * std::cos(x / 40.0));
    }
  io.tmpl = io.gray(cv::Rect(size.width / 3, size.height / 3, 32, 32)).clone();
  // Two frames of a scene moved by (2.5, 1.5) pixels, at half size, for the optical-flow rows.
  cv::resize(io.gray, io.frame0, cv::Size(size.width / 2, size.height / 2), 0, 0, cv::INTER_AREA);
  Mat shift = (cv::Mat_<double>(2, 3) << 1, 0, 2.5, 0, 1, 1.5);
  cv::warpAffine(io.frame0, io.frame1, shift, io.frame0.size(), cv::INTER_LINEAR, cv::BORDER_REFLECT);
  std::vector<cv::Point2f> corners;
  cv::goodFeaturesToTrack(io.frame0, corners, 500, 0.01, 8);
  io.pts = Mat(corners).reshape(2, 1).clone();
  cv::resize(io.f32, io.small, cv::Size(512, 512), 0, 0, cv::INTER_AREA);
  io.tiny = io.gray(cv::Rect(0, 0, 16, 16)).clone();
  cv::resize(io.f32, io.big, cv::Size(4096, 4096), 0, 0, cv::INTER_LINEAR);
}

void upload(const Io<Mat> &c, Io<UMat> &g) {
  const Mat *src[] = {&c.bgr, &c.gray, &c.gray2, &c.bin, &c.f32, &c.f32b, &c.mapx, &c.mapy, &c.tmpl, &c.frame0, &c.frame1, &c.pts, &c.small, &c.tiny, &c.big};
  UMat *dst[] = {&g.bgr, &g.gray, &g.gray2, &g.bin, &g.f32, &g.f32b, &g.mapx, &g.mapy, &g.tmpl, &g.frame0, &g.frame1, &g.pts, &g.small, &g.tiny, &g.big};
  for (size_t i = 0; i < sizeof src / sizeof *src; i++) src[i]->copyTo(*dst[i]);
  g.host_bgr = c.host_bgr;
}

void define_ops() {
  using namespace cv;
  const Check exact{Metric::MaxAbs, 0};
  auto maxabs = [](double t) { return Check{Metric::MaxAbs, t}; };
  auto frac = [](double px, double f) { return Check{Metric::Frac, f, px}; };
  auto rel = [](double t) { return Check{Metric::RelL2, t}; };
  auto scalars = [](int n, double t) { return Check{Metric::Scalars, t, 0, n}; };

  add("upload_8UC3", exact, [](auto &io) { io.host_bgr.copyTo(io.out[0]); }, false);
  add("download_8UC3", exact, [](auto &io) { io.bgr.copyTo(io.host_out); }, false);
  // The fixed cost of one small operation (one launch), and a long one (a ~2 GFLOP blur of a
  // 4096x4096 float image), which also shows that cv::ocl::finish() waits for the GPU.
  add("add_16x16_8U", exact, [](auto &io) { add(io.tiny, io.tiny, io.out[0]); });
  add("GaussianBlur_31x31_4k_32F", maxabs(1e-3), [](auto &io) { GaussianBlur(io.big, io.out[0], Size(31, 31), 8); });
  add("cvtColor_BGR2GRAY", maxabs(1), [](auto &io) { cvtColor(io.bgr, io.out[0], COLOR_BGR2GRAY); });
  add("cvtColor_BGR2HSV", frac(1, 0.001), [](auto &io) { cvtColor(io.bgr, io.out[0], COLOR_BGR2HSV); });
  add("cvtColor_BGR2YUV", maxabs(1), [](auto &io) { cvtColor(io.bgr, io.out[0], COLOR_BGR2YUV); });
  add("GaussianBlur_3x3_8U", maxabs(1), [](auto &io) { GaussianBlur(io.gray, io.out[0], Size(3, 3), 0); });
  add("GaussianBlur_7x7_8UC3", maxabs(1), [](auto &io) { GaussianBlur(io.bgr, io.out[0], Size(7, 7), 0); });
  add("GaussianBlur_5x5_32F", maxabs(1e-3), [](auto &io) { GaussianBlur(io.f32, io.out[0], Size(5, 5), 0); });
  add("blur_5x5_8U", maxabs(1), [](auto &io) { blur(io.gray, io.out[0], Size(5, 5)); });
  add("boxFilter_5x5_32F", maxabs(1e-3), [](auto &io) { boxFilter(io.f32, io.out[0], -1, Size(5, 5)); });
  add("filter2D_5x5_32F", maxabs(1e-3), [](auto &io) {
    Mat k = (Mat_<float>(3, 3) << 0, -1, 0, -1, 5, -1, 0, -1, 0);
    filter2D(io.f32, io.out[0], -1, k);
  });
  add("sepFilter2D_32F", maxabs(1e-3), [](auto &io) {
    Mat kx = getGaussianKernel(9, 2, CV_32F), ky = getGaussianKernel(5, 1, CV_32F);
    sepFilter2D(io.f32, io.out[0], -1, kx, ky);
  });
  add("Sobel_dx_8U_32F", maxabs(1e-2), [](auto &io) { Sobel(io.gray, io.out[0], CV_32F, 1, 0, 3); });
  add("Scharr_dy_32F", maxabs(1e-3), [](auto &io) { Scharr(io.f32, io.out[0], CV_32F, 0, 1); });
  // Issue 23's own forms of these rows: Scharr of 8U to 16S and Sobel of a float image.
  add("Scharr_dx_8U_16S", maxabs(1), [](auto &io) { Scharr(io.gray, io.out[0], CV_16S, 1, 0); });
  add("Sobel_dy_32F", maxabs(1e-3), [](auto &io) { Sobel(io.f32, io.out[0], CV_32F, 0, 1, 3); });
  add("Laplacian_8U_16S", maxabs(1), [](auto &io) { Laplacian(io.gray, io.out[0], CV_16S, 3); });
  add("Canny_50_150", frac(0, 0.01), [](auto &io) { Canny(io.gray, io.out[0], 50, 150); });
  add("resize_up2_linear_8UC3", maxabs(1), [](auto &io) { resize(io.bgr, io.out[0], Size(), 2, 2, INTER_LINEAR); });
  add("resize_down2_area_8U", maxabs(1), [](auto &io) { resize(io.gray, io.out[0], Size(), 0.5, 0.5, INTER_AREA); });
  // A scale that is not 1/n takes INTER_AREA's general kernel (weights per source pixel).
  add("resize_0.6_area_8UC3", maxabs(1), [](auto &io) { resize(io.bgr, io.out[0], Size(), 0.6, 0.6, INTER_AREA); });
  add("resize_0.7_linear_32F", maxabs(1e-3), [](auto &io) { resize(io.f32, io.out[0], Size(), 0.7, 0.7, INTER_LINEAR); });
  add("warpAffine_rot10_8U", frac(2, 0.002), [](auto &io) {
    Mat m = getRotationMatrix2D(Point2f(io.gray.cols / 2.f, io.gray.rows / 2.f), 10, 1.1);
    warpAffine(io.gray, io.out[0], m, io.gray.size());
  });
  add("warpPerspective_8U", frac(2, 0.002), [](auto &io) {
    Point2f a[] = {{0, 0}, {1919, 0}, {1919, 1079}, {0, 1079}}, b[] = {{50, 30}, {1850, 0}, {1900, 1050}, {20, 1000}};
    warpPerspective(io.gray, io.out[0], getPerspectiveTransform(a, b), io.gray.size());
  });
  add("remap_linear_8U", frac(2, 0.002), [](auto &io) { remap(io.gray, io.out[0], io.mapx, io.mapy, INTER_LINEAR); });
  add("threshold_binary_8U", exact, [](auto &io) { threshold(io.gray, io.out[0], 100, 255, THRESH_BINARY); });
  add("threshold_trunc_32F", exact, [](auto &io) { threshold(io.f32, io.out[0], 5, 0, THRESH_TRUNC); });
  add("add_8U", exact, [](auto &io) { add(io.gray, io.gray2, io.out[0]); });
  add("subtract_32F", maxabs(1e-5), [](auto &io) { subtract(io.f32, io.f32b, io.out[0]); });
  add("absdiff_8U", exact, [](auto &io) { absdiff(io.gray, io.gray2, io.out[0]); });
  add("multiply_32F", maxabs(1e-4), [](auto &io) { multiply(io.f32, io.f32b, io.out[0]); });
  add("absdiff_32F", maxabs(1e-5), [](auto &io) { absdiff(io.f32, io.f32b, io.out[0]); });
  add("addWeighted_8U", maxabs(1), [](auto &io) { addWeighted(io.gray, 0.3, io.gray2, 0.7, 5, io.out[0]); });
  add("compare_gt_8U", exact, [](auto &io) { compare(io.gray, io.gray2, io.out[0], CMP_GT); });
  add("bitwise_and_8U", exact, [](auto &io) { bitwise_and(io.gray, io.gray2, io.out[0]); });
  add("inRange_8UC3", exact, [](auto &io) { inRange(io.bgr, Scalar(40, 50, 60), Scalar(180, 190, 200), io.out[0]); });
  add("convertTo_8U_32F", maxabs(1e-5), [](auto &io) { io.gray.convertTo(io.out[0], CV_32F, 1 / 255.0, 0.5); });
  add("convertScaleAbs_32F", maxabs(1), [](auto &io) { convertScaleAbs(io.f32, io.out[0], 20, -50); });
  add("LUT_8U", exact, [](auto &io) {
    Mat lut(1, 256, CV_8U);
    for (int i = 0; i < 256; i++) lut.at<uchar>(i) = uchar(255 - i / 2);
    LUT(io.gray, lut, io.out[0]);
  });
  add("normalize_minmax_32F", maxabs(1e-4), [](auto &io) { normalize(io.f32, io.out[0], 0, 1, NORM_MINMAX); });
  add("countNonZero_8U", scalars(1, 0), [](auto &io) { io.s[0] = countNonZero(io.bin); });
  add("sum_32F", scalars(1, 1e-4), [](auto &io) { io.s[0] = sum(io.f32)[0]; });
  add("mean_8UC3", scalars(3, 1e-5), [](auto &io) {
    Scalar m = mean(io.bgr);
    for (int i = 0; i < 3; i++) io.s[i] = m[i];
  });
  add("meanStdDev_32F", scalars(2, 1e-4), [](auto &io) {
    Scalar m, d;
    meanStdDev(io.f32, m, d);
    io.s[0] = m[0], io.s[1] = d[0];
  });
  add("minMaxLoc_32F", scalars(2, 0), [](auto &io) { minMaxLoc(io.f32b, &io.s[0], &io.s[1]); });
  add("norm_L2_32F", scalars(1, 1e-4), [](auto &io) { io.s[0] = norm(io.f32, NORM_L2); });
  add("norm_L1_diff_8U", scalars(1, 1e-6), [](auto &io) { io.s[0] = norm(io.gray, io.gray2, NORM_L1); });
  add("moments_8U", scalars(3, 1e-4), [](auto &io) {
    Moments m = moments(io.gray);
    io.s[0] = m.m00, io.s[1] = m.m10, io.s[2] = m.mu11;
  });
  add("reduce_cols_sum_32F", rel(1e-5), [](auto &io) { reduce(io.f32, io.out[0], 0, REDUCE_SUM, CV_32F); });
  add("integral_8U_32S", exact, [](auto &io) { integral(io.gray, io.out[0], CV_32S); });
  add("phase_32F", maxabs(2e-3), [](auto &io) { phase(io.f32, io.f32b, io.out[0]); });
  add("magnitude_32F", maxabs(1e-4), [](auto &io) { magnitude(io.f32, io.f32b, io.out[0]); });
  add("cartToPolar_32F", maxabs(1e-2), [](auto &io) { cartToPolar(io.f32, io.f32b, io.out[0], io.out[1]); });
  add("pow_2.5_32F", rel(1e-5), [](auto &io) { pow(io.f32, 2.5, io.out[0]); });
  add("exp_32F", rel(1e-5), [](auto &io) { exp(io.f32, io.out[0]); });
  add("log_32F", maxabs(1e-4), [](auto &io) { log(io.f32, io.out[0]); });
  add("sqrt_32F", maxabs(1e-5), [](auto &io) { sqrt(io.f32, io.out[0]); });
  add("transpose_8U", exact, [](auto &io) { transpose(io.gray, io.out[0]); });
  add("flip_both_8UC3", exact, [](auto &io) { flip(io.bgr, io.out[0], -1); });
  add("copyMakeBorder_8UC3", exact, [](auto &io) { copyMakeBorder(io.bgr, io.out[0], 8, 8, 8, 8, BORDER_REFLECT_101); });
  add("split_8UC3", exact, [](auto &io) {
    split(io.bgr, io.parts);
    for (int i = 0; i < 3; i++) io.out[i] = io.parts[i];
  });
  add("merge_3x8U", exact, [](auto &io) {
    std::vector<std::decay_t<decltype(io.gray)>> planes{io.gray, io.gray2, io.gray};
    merge(planes, io.out[0]);
  });
  add("dilate_3x3_8U", exact, [](auto &io) { dilate(io.gray, io.out[0], Mat()); });
  add("erode_5x5_8U", exact, [](auto &io) { erode(io.gray, io.out[0], getStructuringElement(MORPH_RECT, Size(5, 5))); });
  add("morphologyEx_open_8U", exact, [](auto &io) {
    morphologyEx(io.gray, io.out[0], MORPH_OPEN, getStructuringElement(MORPH_ELLIPSE, Size(5, 5)));
  });
  add("equalizeHist_8U", maxabs(1), [](auto &io) { equalizeHist(io.gray, io.out[0]); });
  add("calcHist_8U", exact, [](auto &io) {
    std::vector<std::decay_t<decltype(io.gray)>> imgs{io.gray};
    calcHist(imgs, {0}, noArray(), io.out[0], {256}, {0.f, 256.f});
  });
  add("bilateralFilter_d9_8U", frac(1, 0.01), [](auto &io) { bilateralFilter(io.gray, io.out[0], 9, 50, 50); });
  add("medianBlur_5_8U", exact, [](auto &io) { medianBlur(io.gray, io.out[0], 5); });
  add("pyrDown_8UC3", maxabs(1), [](auto &io) { pyrDown(io.bgr, io.out[0]); });
  add("pyrUp_8U", maxabs(1), [](auto &io) { pyrUp(io.gray, io.out[0]); });
  add("matchTemplate_CCORR_NORMED", maxabs(5e-3), [](auto &io) { matchTemplate(io.gray, io.tmpl, io.out[0], TM_CCORR_NORMED); });
  add("cornerHarris_8U", rel(1e-4), [](auto &io) { cornerHarris(io.gray, io.out[0], 3, 3, 0.04); });
  add("dft_32F_rows", rel(1e-4), [](auto &io) { dft(io.f32, io.out[0], DFT_COMPLEX_OUTPUT); });
  add("gemm_512_32F", rel(1e-5), [](auto &io) { gemm(io.small, io.small, 1, noArray(), 0, io.out[0]); });
  add("calcOpticalFlowFarneback", rel(0.1), [](auto &io) {
    calcOpticalFlowFarneback(io.frame0, io.frame1, io.out[0], 0.5, 3, 15, 3, 5, 1.2, 0);
  });
  add("calcOpticalFlowPyrLK_500", frac(0.05, 0.05), [](auto &io) {
    calcOpticalFlowPyrLK(io.frame0, io.frame1, io.pts, io.out[0], io.out[1], noArray());
  });
}

struct Result {
  double first_ms = 0, median_ms = 0, kernels = 0, metric = 0, cpu_ms = 0;
  double enqueue_ms = 0;  // median time until the call returns (before cv::ocl::finish())
  double pipelined_ms = 0;  // reps calls back to back, one finish at the end, per call
  std::string check, note;
};

double scalar_metric(const Check &c, const double *ref, const double *got) {
  double worst = 0;
  for (int i = 0; i < c.ns; i++) {
    double d = std::fabs(ref[i] - got[i]), m = std::max(std::fabs(ref[i]), 1e-30);
    worst = std::max(worst, d / m);
  }
  return worst;
}

Result run_op(Op &op, Io<Mat> &cio, Io<UMat> &gio, int reps) {
  Result r;
  try {
    for (auto &o : cio.out) o.release();
    cio.host_out.release();
    gio.host_out.release();
    long k0 = launches();
    double t0 = now_ms();
    op.cpu(cio);
    r.cpu_ms = now_ms() - t0;
    if (launches() != k0) r.note += "cpu path launched kernels; ";

    for (auto &o : gio.out) o.release();
    long e0 = cl_errors(), b0 = clcount()[2];
    k0 = launches();
    t0 = now_ms();
    op.gpu(gio);
    cv::ocl::finish();
    r.first_ms = now_ms() - t0;
    long first_kernels = launches() - k0, first_builds = clcount()[2] - b0;
    for (int i = 0; i < 2; i++) op.gpu(gio);
    cv::ocl::finish();
    std::vector<double> times, enqueued;
    bool profile = profiled(op.name);
    if (profile) profile_reset();
    k0 = launches();
    for (int i = 0; i < reps; i++) {
      t0 = now_ms();
      op.gpu(gio);
      enqueued.push_back(now_ms() - t0);
      cv::ocl::finish();
      times.push_back(now_ms() - t0);
    }
    r.kernels = double(launches() - k0) / reps;
    if (profile) profile_print(op.name, reps);
    std::sort(times.begin(), times.end());
    std::sort(enqueued.begin(), enqueued.end());
    r.median_ms = times[times.size() / 2];
    r.enqueue_ms = enqueued[enqueued.size() / 2];
    t0 = now_ms();
    for (int i = 0; i < reps; i++) op.gpu(gio);
    cv::ocl::finish();
    r.pipelined_ms = (now_ms() - t0) / reps;

    if (op.check.metric == Metric::Scalars) {
      r.metric = scalar_metric(op.check, cio.s, gio.s);
    } else {
      for (int i = 0; i < 3; i++) r.metric = std::max(r.metric, metric_of(op.check, cio.out[i], host(gio.out[i])));
      r.metric = std::max(r.metric, metric_of(op.check, cio.host_out, gio.host_out));
    }
    bool good = r.metric <= op.check.tol;
    long errors = cl_errors() - e0;
    if (op.expect_kernels && (first_kernels == 0 || r.kernels == 0))
      r.check = good ? "CPU" : "CPU+BAD";
    else if (errors)  // OpenCV may have finished the operation on the CPU after the error
      r.check = good ? "ERR" : "ERR+BAD";
    else
      r.check = good ? "ok" : "BAD";
    if (errors) r.note += std::to_string(errors) + " OpenCL errors, last " + last_cl_error() + "; ";
    if (first_builds) r.note += std::to_string(first_builds) + " builds; ";
    if (first_kernels != r.kernels && op.expect_kernels)
      r.note += "first call " + std::to_string(first_kernels) + " kernels; ";
  } catch (const std::exception &e) {
    r.check = "EXC";
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    std::replace(what.begin(), what.end(), '\t', ' ');
    r.note += what.substr(0, 300);
  }
  return r;
}

}  // namespace

int main(int argc, char **argv) {
  int reps = 15;
  std::string only;
  bool list = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = "," + std::string(argv[++i]) + ",";
    else if (!strcmp(argv[i], "--list")) list = true;
    else {
      fprintf(stderr, "usage: %s [--reps N] [--only a,b] [--list]\n", argv[0]);
      return 2;
    }
  }
  define_ops();
  if (list) {
    for (auto &op : ops) printf("%s\n", op.name.c_str());
    return 0;
  }
  cv::setNumThreads(std::max(1, cv::getNumThreads()));
  bool have = cv::ocl::haveOpenCL();  // loads the OpenCL runtime (and cltrace.so with it)
  bool counting = clcount_or_null() != nullptr;
  printf("OpenCV %s, haveOpenCL %d, cltrace count %s\n", CV_VERSION, int(have),
         counting ? "loaded" : "NOT loaded (OPENCV_OPENCL_RUNTIME=cltrace.so and CLTRACE=count unset?)");
  if (!counting) {
    printf("FATAL: without cltrace.so's count mode a CPU fallback cannot be told from a GPU run\n");
    return 1;
  }
  if (!have || !cv::ocl::useOpenCL()) {
    printf("FATAL: OpenCV found no usable OpenCL device\n");
    return 1;
  }
  const cv::ocl::Device &d = cv::ocl::Device::getDefault();
  if (!d.available()) {
    printf("FATAL: OpenCV's default OpenCL device is not available\n");
    return 1;
  }
  std::vector<cv::ocl::PlatformInfo> plats;
  cv::ocl::getPlatfomsInfo(plats);
  printf("DEVICE %s | vendor %s | %s | driver %s | %s | image %d | fp64 %d | platforms %zu: %s\n",
         d.name().c_str(), d.vendorName().c_str(), d.version().c_str(), d.driverVersion().c_str(),
         d.OpenCL_C_Version().c_str(), int(d.imageSupport()), d.doubleFPConfig() != 0, plats.size(),
         plats.empty() ? "-" : plats[0].name().c_str());
  printf("IMAGE2D R/32F %d, R/8U %d, RGBA/8U %d\n", int(cv::ocl::Image2D::isFormatSupported(CV_32F, 1, false)),
         int(cv::ocl::Image2D::isFormatSupported(CV_8U, 1, false)), int(cv::ocl::Image2D::isFormatSupported(CV_8U, 4, false)));
  fflush(stdout);

  Io<Mat> cio;
  Io<UMat> gio;
  make_inputs(cio, cv::Size(1920, 1080));
  upload(cio, gio);
  cv::ocl::finish();
  for (auto &op : ops) {
    if (!only.empty() && only.find("," + op.name + ",") == std::string::npos) continue;
    Result r = run_op(op, cio, gio, reps);
    printf("ROW\t%s\t%.3f\t%.4f\t%.1f\t%s\t%.3g\t%.3g\t%.2f\t%.4f\t%.4f\t%s\n", op.name.c_str(), r.first_ms,
           r.median_ms, r.kernels, r.check.c_str(), r.metric, op.check.tol, r.cpu_ms, r.enqueue_ms, r.pipelined_ms,
           r.note.c_str());
    fflush(stdout);
  }
  long *s = clcount();
  printf("TOTAL launches %ld (failed %ld), builds %ld (failed %ld), OpenCL errors %ld\n", s[0], s[1], s[2], s[3], s[4]);
  return 0;
}

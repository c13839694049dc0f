// QuartzCore for mslsim's metal-cpp-compatible API. metal-cpp's QuartzCore has only display
// classes (CA::MetalLayer, CA::MetalDrawable), which a compute simulator has no use for: the header
// exists so that programs including it compile, and declares the namespace.
#pragma once

#include <Foundation/Foundation.hpp>
#include <Metal/Metal.hpp>

namespace CA {}

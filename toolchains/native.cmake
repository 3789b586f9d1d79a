# CMake toolchain file for the native khost profile (toolchains/native.profile).
set(KTUNE_PROFILE native)
include(${CMAKE_CURRENT_LIST_DIR}/profile.cmake)

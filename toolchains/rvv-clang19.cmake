# CMake toolchain file for the rvv-clang19 khost profile (toolchains/rvv-clang19.profile).
set(KTUNE_PROFILE rvv-clang19)
include(${CMAKE_CURRENT_LIST_DIR}/profile.cmake)

# Turns a khost toolchain profile (toolchains/<name>.profile) into CMake toolchain settings, so
# khost and CMake builds use the same compilers and flags. Used by the <name>.cmake files:
#   set(KTUNE_PROFILE <name>) include(${CMAKE_CURRENT_LIST_DIR}/profile.cmake)
# Cross profiles (those naming an emulator) set CMAKE_SYSTEM_NAME, so CMake cross-compiles and
# runs test programs through CMAKE_CROSSCOMPILING_EMULATOR.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/${KTUNE_PROFILE}.profile _kt_lines)
foreach(_kt_line IN LISTS _kt_lines)
  if(_kt_line MATCHES "^([a-z_]+)[ \t]*=[ \t]*(.*)$")
    set(_kt_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
  endif()
endforeach()

if(_kt_emulator)
  set(CMAKE_SYSTEM_NAME Linux)
  set(CMAKE_SYSTEM_PROCESSOR ${_kt_processor})
  separate_arguments(_kt_emulator_list UNIX_COMMAND "${_kt_emulator}")
  set(CMAKE_CROSSCOMPILING_EMULATOR ${_kt_emulator_list})
  set(CMAKE_FIND_ROOT_PATH /usr/${_kt_processor}-linux-gnu)
  set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
  set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
  set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
endif()
set(CMAKE_C_COMPILER ${_kt_cc})
set(CMAKE_CXX_COMPILER ${_kt_cxx})
set(CMAKE_C_FLAGS_INIT "${_kt_target_flags} ${_kt_cflags}")
set(CMAKE_CXX_FLAGS_INIT "${_kt_target_flags} ${_kt_cflags}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_kt_ldflags}")

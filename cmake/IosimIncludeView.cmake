# iosim_include_view(<target> <view> <path>...): the target's public include directory is a folder of
# the build tree, include/<view>, that holds links to the given files and folders of the source tree
# (paths relative to the repository root) and nothing else. A target sees only the views of what it
# links, so an include the layering forbids (sim/ including src/, sim/core including sim/schedule)
# is a missing file, and the build fails.
function(iosim_include_view target view)
  set(root ${CMAKE_BINARY_DIR}/include/${view})
  foreach(path IN LISTS ARGN)
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${path})
      message(FATAL_ERROR "iosim_include_view(${target}): no ${path} in the source tree")
    endif()
    get_filename_component(parent ${root}/${path} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${path} ${root}/${path} SYMBOLIC)
  endforeach()
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${root}>)
endfunction()

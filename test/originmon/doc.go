// Package originmon judges an upgrade by openshift/origin's monitor rules, read from origin's source; pure functions over what a world observed, plus the API sampler.
//
// Every rule here was read from openshift/origin and rewritten, not copied;
// each file names the origin file and commit it follows, and says where it
// deliberately differs.
package originmon

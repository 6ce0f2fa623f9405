package web

// CONTRACT STUB: the teacher-side helper replaces this file.

import "github.com/labstack/echo/v4"

func notBuilt() error { return fail(NotFound, "workshop challenges are not built yet") }

func (s *Server) challengeForm(c echo.Context) error        { return notBuilt() }
func (s *Server) challengeCreate(c echo.Context) error      { return notBuilt() }
func (s *Server) teacherView(c echo.Context) error          { return notBuilt() }
func (s *Server) teacherStream(c echo.Context) error        { return notBuilt() }
func (s *Server) challengeFreeze(c echo.Context) error      { return notBuilt() }
func (s *Server) challengeUnfreeze(c echo.Context) error    { return notBuilt() }
func (s *Server) challengeReveal(c echo.Context) error      { return notBuilt() }
func (s *Server) challengeResultsCSV(c echo.Context) error  { return notBuilt() }
func (s *Server) challengeResultsJSON(c echo.Context) error { return notBuilt() }
func (s *Server) challengeFile(c echo.Context) error        { return notBuilt() }
func (s *Server) leaderboard(c echo.Context) error          { return notBuilt() }
func (s *Server) leaderboardStream(c echo.Context) error    { return notBuilt() }

package web

// CONTRACT STUB: the participant-side helper replaces this file.

import "github.com/labstack/echo/v4"

func (s *Server) joinCodeForm(c echo.Context) error  { return notBuilt() }
func (s *Server) joinCode(c echo.Context) error      { return notBuilt() }
func (s *Server) joinNameForm(c echo.Context) error  { return notBuilt() }
func (s *Server) joinChallenge(c echo.Context) error { return notBuilt() }
